// core/host_copy.h: copies between host and device that do not wait for the device's queued work
// (the rollout engine queues step k + 1 while step k's samples travel to the host, and fills step
// k + 1's inputs from the host). Values on every device; on CUDA, that the copies return while
// work queued before them is still running (ATen's plain copy from pageable memory would have
// waited for it).
#include "verlpp/core/host_copy.h"

#include <ATen/ATen.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <gtest/gtest.h>

#include "verlpp/core/device.h"

namespace verlpp {
namespace {

at::Tensor host_values() { return at::arange(1000, at::kLong).mul(7).remainder(13); }

TEST(HostCopy, ValuesArriveOnTheCpu) {
  const at::Tensor host = host_values();
  EXPECT_TRUE(at::equal(to_device(host, at::kCPU), host));
  at::Tensor dst = at::zeros_like(host);
  copy_from_host(dst, host);
  EXPECT_TRUE(at::equal(dst, host));
  HostCopy back(host);
  EXPECT_TRUE(at::equal(back.wait(), host));
}

// Seconds of matrix products queued on `device`'s current stream.
void queue_long_work(const at::Device& device) {
  const at::Tensor a = at::randn({4096, 4096}, at::TensorOptions().device(device));
  at::Tensor b = a;
  for (int i = 0; i < 200; ++i) b = at::mm(a, b).div_(64.0);
}

TEST(HostCopyGpu, CopiesToTheDeviceDoNotWaitForQueuedWork) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const at::Device cuda(at::kCUDA, 0);
  const c10::impl::VirtualGuardImpl guard(c10::DeviceType::CUDA);
  const c10::Stream stream = guard.getStream(cuda);
  const at::Tensor host = host_values();
  at::Tensor dst = at::zeros(host.sizes(), host.options().device(cuda));
  // The first pinned staging block is a new page-locked allocation, which may wait for the device;
  // the engine's steps reuse cached blocks, as the copies below do after this one.
  copy_from_host(dst, host);
  stream.synchronize();

  queue_long_work(cuda);
  const at::Tensor copied = to_device(host, cuda);
  copy_from_host(dst, host);
  EXPECT_FALSE(stream.query()) << "the copies waited for the queued work";
  HostCopy back(copied);
  EXPECT_TRUE(at::equal(back.wait(), host));
  EXPECT_TRUE(at::equal(dst.cpu(), host));

  // The check can fail: ATen's plain copy from pageable memory does wait.
  queue_long_work(cuda);
  const at::Tensor plain = host.to(cuda);
  EXPECT_TRUE(stream.query());
  EXPECT_TRUE(at::equal(plain.cpu(), host));
}

}  // namespace
}  // namespace verlpp
