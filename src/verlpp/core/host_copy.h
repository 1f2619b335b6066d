// A device tensor's copy to host memory that does not wait for the device: on CUDA into pinned
// memory with a non-blocking copy and an event recorded behind it, so that the host can queue
// more work (the rollout engine's next step) and wait for this copy alone later; on the CPU a
// plain copy.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Event.h>

#include <optional>

namespace verlpp {

class HostCopy {
 public:
  // Starts copying `src` (any device) to the host.
  explicit HostCopy(const at::Tensor& src);
  // The host tensor, once the copy has landed (waits for the copy only, not for work queued on
  // the device after it).
  const at::Tensor& wait();

 private:
  at::Tensor host_;
  std::optional<c10::Event> copied_;
};

}  // namespace verlpp
