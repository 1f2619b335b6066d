#include <algorithm>
#include <cmath>
#include <cstdint>

#include "verlpp/kernels/logits_logprob_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;

// The running maximum m, s = sum e^{z - m} and t = sum e^{z - m} z of some of a row's z.
struct Partial {
  float m, s, t;
};

// -inf contributes nothing; NaN reaches s (and so the outputs).
__device__ void add(Partial& a, float z) {
  if (z > a.m) {
    const float r = expf(a.m - z);
    a.s = a.s * r + 1.f;
    a.t = a.t * r + z;
    a.m = z;
  } else if (z != -INFINITY) {
    const float e = expf(z - a.m);
    a.s += e;
    a.t = fmaf(e, z, a.t);
  }
}

__device__ Partial merge(const Partial& a, const Partial& b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return a;
  const float ra = expf(a.m - m), rb = expf(b.m - m);
  return {m, a.s * ra + b.s * rb, a.t * ra + b.t * rb};
}

__device__ Partial warp_merge(Partial a) {
  for (int offset = 16; offset > 0; offset /= 2) {
    Partial b{};
    b.m = __shfl_xor_sync(0xffffffffu, a.m, offset);
    b.s = __shfl_xor_sync(0xffffffffu, a.s, offset);
    b.t = __shfl_xor_sync(0xffffffffu, a.t, offset);
    a = merge(a, b);
  }
  return a;
}

// z = x / tau as ATen's division by a scalar computes it: x times the reciprocal.
__device__ float inverse_temperature(float temperature) { return 1.f / temperature; }

__global__ void __launch_bounds__(kThreads) forward_kernel(LogitsLogProbParams p) {
  __shared__ Partial warps[kWarps];
  const int64_t row = blockIdx.x;
  const float* x = p.logits + row * p.vocab;
  const float inv = inverse_temperature(p.temperature);
  Partial a{-INFINITY, 0.f, 0.f};
  if (p.vocab % 4 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0) {
    const auto* x4 = reinterpret_cast<const float4*>(x);
    for (int64_t i = threadIdx.x; i < p.vocab / 4; i += kThreads) {
      const float4 v = x4[i];
      add(a, v.x * inv);
      add(a, v.y * inv);
      add(a, v.z * inv);
      add(a, v.w * inv);
    }
  } else {
    for (int64_t i = threadIdx.x; i < p.vocab; i += kThreads) add(a, x[i] * inv);
  }
  a = warp_merge(a);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = a;
  __syncthreads();
  if (threadIdx.x != 0) return;
  Partial all = warps[0];
  for (int w = 1; w < kWarps; ++w) all = merge(all, warps[w]);
  const float log_sum = logf(all.s);
  p.row_max[row] = all.m;
  p.log_sum[row] = log_sum;
  const int64_t target = p.targets[row];
  p.logprob[row] = target >= 0 && target < p.vocab ? (x[target] * inv - all.m) - log_sum : NAN;
  if (p.entropy != nullptr) p.entropy[row] = (all.m + log_sum) - all.t / all.s;
}

// One row per blockIdx.y (striding by gridDim.y), its columns over blockIdx.x and the threads.
template <typename T>
__global__ void backward_kernel(LogitsLogProbBackwardParams p) {
  const float inv = inverse_temperature(p.temperature);
  T* out = static_cast<T*>(p.grad_logits);
  for (int64_t row = blockIdx.y; row < p.rows; row += gridDim.y) {
    const float m = p.row_max[row], log_sum = p.log_sum[row];
    const float g = p.grad_logprob != nullptr ? p.grad_logprob[row] : 0.f;
    const float ge = p.grad_entropy != nullptr ? p.grad_entropy[row] : 0.f;
    const float entropy = p.grad_entropy != nullptr ? p.entropy[row] : 0.f;
    const int64_t target = p.targets[row];
    const float* x = p.logits + row * p.vocab;
    for (int64_t v = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; v < p.vocab;
         v += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      const float logp = (x[v] * inv - m) - log_sum;
      const float prob = expf(logp);
      float grad = 0.f;
      if (p.grad_logprob != nullptr) {
        grad = -(prob * g);
        if (v == target) grad += g;
      }
      if (p.grad_entropy != nullptr) grad -= prob * (logp + entropy) * ge;
      if (p.temperature != 1.f) grad *= inv;
      store(out, row * p.vocab + v, grad);
    }
  }
}

}  // namespace

cudaError_t launch_logits_logprob(const LogitsLogProbParams& p, cudaStream_t stream) {
  if (p.rows == 0) return cudaSuccess;
  forward_kernel<<<static_cast<unsigned>(p.rows), kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

cudaError_t launch_logits_logprob_backward(const LogitsLogProbBackwardParams& p,
                                           cudaStream_t stream) {
  if (p.rows == 0 || p.vocab == 0) return cudaSuccess;
  constexpr int threads = 256;
  const dim3 blocks(
      static_cast<unsigned>(std::min<int64_t>((p.vocab + threads - 1) / threads, 256)),
      static_cast<unsigned>(std::min<int64_t>(p.rows, 65535)));
  return with_element_type(p.grad_type, [&](auto tag) {
    backward_kernel<ElementOf<decltype(tag)>><<<blocks, threads, 0, stream>>>(p);
    return cudaGetLastError();
  });
}

}  // namespace verlpp::kernels
