#include <algorithm>

#include "verlpp/kernels/silu_mul_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;

template <typename T>
__device__ float silu_times(float g, float u, const T* type) {
  return round_to(g / (1.f + expf(-g)), type) * u;
}

// Where element i of y is read in gate and up.
__device__ int64_t input_index(const SiluMulParams& p, int64_t i) {
  if (p.cols == 0) return i;
  const int64_t row = i / p.cols;
  return row * p.in_stride + (i - row * p.cols);
}

// Elements [first, n) one per thread (grid-stride).
template <typename T>
__device__ void scalar_part(const SiluMulParams& p, int64_t first) {
  const T* g = static_cast<const T*>(p.gate);
  const T* u = static_cast<const T*>(p.up);
  T* y = static_cast<T*>(p.y);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = first + static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n;
       i += step) {
    const int64_t in = input_index(p, i);
    store(y, i, silu_times(load(g, in), load(u, in), y));
  }
}

// `vectors` 16-byte vectors of the three arrays, then the elements after them.
template <typename T>
__global__ void silu_mul_kernel(SiluMulParams p, int64_t vectors) {
  constexpr int kPerVector = 16 / sizeof(T);
  const auto* g = static_cast<const uint4*>(p.gate);
  const auto* u = static_cast<const uint4*>(p.up);
  auto* y = static_cast<uint4*>(p.y);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t v = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < vectors;
       v += step) {
    const int64_t in = input_index(p, v * kPerVector) / kPerVector;
    const uint4 gv = g[in], uv = u[in];
    uint4 out;
    const T* ge = reinterpret_cast<const T*>(&gv);
    const T* ue = reinterpret_cast<const T*>(&uv);
    T* oe = reinterpret_cast<T*>(&out);
#pragma unroll
    for (int k = 0; k < kPerVector; ++k) store(oe, k, silu_times(load(ge, k), load(ue, k), oe));
    y[v] = out;
  }
  scalar_part<T>(p, vectors * kPerVector);
}

bool aligned(const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; }

template <typename T>
cudaError_t launch(const SiluMulParams& p, cudaStream_t stream) {
  constexpr int64_t kPerVector = 16 / sizeof(T);
  const bool vectorized = aligned(p.gate) && aligned(p.up) && aligned(p.y) &&
                          p.cols % kPerVector == 0 && p.in_stride % kPerVector == 0;
  const int64_t vectors = vectorized ? p.n / kPerVector : 0;
  const int64_t work = std::max<int64_t>(vectors, p.n - vectors * kPerVector);
  const auto blocks =
      static_cast<unsigned>(std::clamp<int64_t>((work + kThreads - 1) / kThreads, 1, kMaxBlocks));
  silu_mul_kernel<T><<<blocks, kThreads, 0, stream>>>(p, vectors);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_silu_mul(const SiluMulParams& p, cudaStream_t stream) {
  if (p.n == 0) return cudaSuccess;
  return with_element_type(p.dtype,
                           [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, stream); });
}

}  // namespace verlpp::kernels
