#include "verlpp/core/cuda_graph.h"

#include <torch/version.h>

#include "verlpp/core/error.h"

// VERLPP_NO_CUDA_GRAPH (cmake -DVERLPP_CUDA_GRAPHS=OFF) leaves CUDA graphs out of a CUDA build.
#if TORCH_VERSION_MAJOR >= 2 && __has_include(<ATen/cuda/CUDAGraph.h>) && \
    __has_include(<cuda_runtime_api.h>) && !defined(VERLPP_NO_CUDA_GRAPH)
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#define VERLPP_HAS_CUDA_GRAPH 1
#else
#define VERLPP_HAS_CUDA_GRAPH 0
#endif

namespace verlpp::compat {

#if VERLPP_HAS_CUDA_GRAPH

struct CudaGraph::Impl {
  at::cuda::CUDAGraph graph;
  bool captured = false;
  // Replays still queued finish before the graph and its memory pool go.
  ~Impl() {
    if (captured) c10::cuda::device_synchronize();
  }
};

bool CudaGraph::available() { return true; }

void CudaGraph::capture(const std::function<void()>& step) {
  try {
    const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream();
    const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
    at::cuda::CUDAEvent ready;
    ready.record(current);
    ready.block(side);
    {
      const c10::cuda::CUDAStreamGuard guard(side);
      step();
      impl_->graph.capture_begin();
      step();
      impl_->graph.capture_end();
    }
    impl_->captured = true;
    at::cuda::CUDAEvent done;
    done.record(side);
    done.block(current);
  } catch (const std::exception& e) {
    throw Error(std::string("CUDA graph capture failed: ") + e.what());
  }
}

void CudaGraph::replay() { impl_->graph.replay(); }

#else

struct CudaGraph::Impl {};

bool CudaGraph::available() { return false; }

void CudaGraph::capture(const std::function<void()>&) {
  throw Error("this build has no CUDA graphs (LibTorch without CUDA headers)");
}

void CudaGraph::replay() { throw Error("this build has no CUDA graphs"); }

#endif

CudaGraph::CudaGraph() : impl_(std::make_unique<Impl>()) {}
CudaGraph::~CudaGraph() = default;
CudaGraph::CudaGraph(CudaGraph&&) noexcept = default;
CudaGraph& CudaGraph::operator=(CudaGraph&&) noexcept = default;

}  // namespace verlpp::compat
