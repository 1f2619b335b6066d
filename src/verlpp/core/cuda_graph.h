// CUDA graphs (CUDA's cudaGraph capture and replay through LibTorch's at::cuda::CUDAGraph): a
// sequence of kernels recorded once and relaunched with one call, which removes the per-kernel
// host launch cost of small steps such as one decode step of the rollout engine. Only in builds
// whose LibTorch has CUDA headers (PyTorch 2.x on GPU machines); elsewhere available() is false.
#pragma once

#include <functional>
#include <memory>

namespace verlpp::compat {

class CudaGraph {
 public:
  // True when this build can capture CUDA graphs.
  static bool available();

  CudaGraph();
  ~CudaGraph();
  CudaGraph(CudaGraph&&) noexcept;
  CudaGraph& operator=(CudaGraph&&) noexcept;

  // Runs `step` once on a side stream (warm-up: lazy allocations and library handles), then
  // captures a second run. Tensors `step` writes must be allocated before the call (inputs and
  // outputs it updates in place) or be kept by `step` itself (they then live in the graph's
  // private memory pool and are overwritten by every replay). The step must not synchronise with
  // the host. Throws verlpp::Error when unavailable or when capture fails.
  void capture(const std::function<void()>& step);
  // Relaunches the captured kernels on the current CUDA stream.
  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace verlpp::compat
