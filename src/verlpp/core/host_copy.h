// Copies between host and device that do not wait for the device's queued work. A device tensor's
// copy to host memory (HostCopy): on CUDA into pinned memory with a non-blocking copy and an event
// recorded behind it, so that the host can queue more work (the rollout engine's next step) and
// wait for this copy alone later; on the CPU a plain copy. A host tensor's copy to the device
// (to_device, copy_from_host): ATen's copy from pageable memory to CUDA synchronises the stream,
// which would drain everything queued before it (the engine's previous step, leaving the GPU idle
// while the host prepares the next); these go through pinned memory with a non-blocking copy
// (ATen's pinned-memory allocator keeps the staging block until the copy has run).
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

// `host` (a CPU tensor) on `device`, same dtype, without waiting for the device.
at::Tensor to_device(const at::Tensor& host, const at::Device& device);

// dst.copy_(host) for a CPU tensor `host` of dst's sizes, without waiting for the device.
void copy_from_host(const at::Tensor& dst, const at::Tensor& host);

}  // namespace verlpp
