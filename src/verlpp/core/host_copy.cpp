#include "verlpp/core/host_copy.h"

#include <ATen/ATen.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <thread>

namespace verlpp {

HostCopy::HostCopy(const at::Tensor& src) {
  if (!src.is_cuda()) {
    host_ = src.contiguous().clone();
    return;
  }
  host_ = at::empty(src.sizes(), src.options().device(at::kCPU).pinned_memory(true));
  host_.copy_(src, /*non_blocking=*/true);
  const c10::impl::VirtualGuardImpl guard(c10::DeviceType::CUDA);
  copied_.emplace(c10::DeviceType::CUDA);
  copied_->record(guard.getStream(src.device()));
}

const at::Tensor& HostCopy::wait() {
  if (copied_) {
    while (!copied_->query()) std::this_thread::yield();
    copied_.reset();
  }
  return host_;
}

}  // namespace verlpp
