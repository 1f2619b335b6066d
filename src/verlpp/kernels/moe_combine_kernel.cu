#include <algorithm>

#include "verlpp/kernels/moe_combine_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 8192;

// VEC consecutive elements of a row per thread (grid-stride over T H / VEC groups).
template <typename T, int VEC>
__global__ void moe_combine_kernel(MoeCombineParams p) {
  const T* y = static_cast<const T*>(p.expert_out);
  const T* w = static_cast<const T*>(p.weights);
  T* out = static_cast<T*>(p.out);
  const int64_t groups_per_row = p.hidden / VEC;
  const int64_t groups = p.tokens * groups_per_row;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups;
       g += step) {
    const int64_t token = g / groups_per_row;
    const int64_t h = (g - token * groups_per_row) * VEC;
    float acc[VEC] = {};
    for (int j = 0; j < p.top_k; ++j) {
      const int64_t row = p.row_of_pair[token * p.top_k + j];
      if (row < 0) continue;
      const float weight = load(w, token * p.top_k + j);
      alignas(16) T values[VEC];
      if constexpr (VEC == 1) {
        values[0] = y[row * p.hidden + h];
      } else {
        *reinterpret_cast<uint4*>(values) = *reinterpret_cast<const uint4*>(y + row * p.hidden + h);
      }
#pragma unroll
      for (int i = 0; i < VEC; ++i) acc[i] = __fmaf_rn(weight, load(values, i), acc[i]);
    }
    alignas(16) T result[VEC];
#pragma unroll
    for (int i = 0; i < VEC; ++i) store(result, i, acc[i]);
    if constexpr (VEC == 1) {
      out[token * p.hidden + h] = result[0];
    } else {
      *reinterpret_cast<uint4*>(out + token * p.hidden + h) = *reinterpret_cast<uint4*>(result);
    }
  }
}

bool aligned(const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; }

template <typename T, int VEC>
cudaError_t launch_with(const MoeCombineParams& p, cudaStream_t stream) {
  const int64_t groups = p.tokens * (p.hidden / VEC);
  const auto blocks =
      static_cast<unsigned>(std::clamp<int64_t>((groups + kThreads - 1) / kThreads, 1, kMaxBlocks));
  moe_combine_kernel<T, VEC><<<blocks, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch(const MoeCombineParams& p, cudaStream_t stream) {
  constexpr int kVec = 16 / sizeof(T);
  if (p.hidden % kVec == 0 && aligned(p.expert_out) && aligned(p.out)) {
    return launch_with<T, kVec>(p, stream);
  }
  return launch_with<T, 1>(p, stream);
}

}  // namespace

cudaError_t launch_moe_combine(const MoeCombineParams& p, cudaStream_t stream) {
  if (p.tokens == 0 || p.hidden == 0) return cudaSuccess;
  if (p.top_k < 1) return cudaErrorInvalidValue;
  return with_element_type(p.dtype,
                           [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, stream); });
}

}  // namespace verlpp::kernels
