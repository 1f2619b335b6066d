#include "verlpp/core/host_copy.h"

#include <ATen/ATen.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <thread>

namespace verlpp {

namespace {

// host's values in pinned memory, the source a non-blocking copy to CUDA needs.
at::Tensor pinned_copy(const at::Tensor& host) {
  at::Tensor pinned = at::empty(host.sizes(), host.options().pinned_memory(true));
  pinned.copy_(host);
  return pinned;
}

}  // namespace

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

at::Tensor to_device(const at::Tensor& host, const at::Device& device) {
  if (!device.is_cuda()) return host.to(device);
  return pinned_copy(host).to(host.options().device(device), /*non_blocking=*/true);
}

void copy_from_host(const at::Tensor& dst, const at::Tensor& host) {
  if (!dst.is_cuda()) {
    dst.copy_(host);
    return;
  }
  dst.copy_(pinned_copy(host), /*non_blocking=*/true);
}

}  // namespace verlpp
