#include <cfloat>
#include <climits>

#include "verlpp/kernels/moe_route_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = 4;
constexpr int kMaxPerLane = kMoeRouteMaxExperts / kWarp;
constexpr unsigned kAll = 0xffffffffu;

__device__ float warp_max(float v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v = fmaxf(v, __shfl_xor_sync(kAll, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v = v + __shfl_xor_sync(kAll, v, offset);
  return v;
}

// The warp's largest (value, expert): larger value first, then the lower expert.
__device__ void warp_argmax(float& value, int& expert) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) {
    const float v = __shfl_xor_sync(kAll, value, offset);
    const int e = __shfl_xor_sync(kAll, expert, offset);
    if (v > value || (v == value && e < expert)) {
      value = v;
      expert = e;
    }
  }
}

// Lane `lane`'s elements are lane + 32 i, i < PER_LANE (E <= 32 PER_LANE).
template <typename T, int PER_LANE>
__global__ void moe_route_kernel(MoeRouteParams p) {
  const int lane = threadIdx.x % kWarp;
  const int64_t token = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarp;
  if (token >= p.tokens) return;
  const T* logits = static_cast<const T*>(p.logits) + token * p.num_experts;
  float e[PER_LANE];
  float m = -FLT_MAX;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    const int expert = lane + kWarp * i;
    e[i] = expert < p.num_experts ? load(logits, expert) : -INFINITY;
    m = fmaxf(m, e[i]);
  }
  m = warp_max(m);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    e[i] = expf(e[i] - m);
    s += e[i];
  }
  s = warp_sum(s);
#pragma unroll
  for (int i = 0; i < PER_LANE; ++i) {
    const float prob = e[i] / s;
    e[i] = lane + kWarp * i >= p.num_experts ? -1.f : isnan(prob) ? INFINITY : prob;
  }

  // k rounds of the warp's argmax; a chosen element drops to -1 (every p is >= 0, a NaN ranks
  // above every number, as in at::topk, and is kept as infinity).
  float chosen = 0.f, total = 0.f;
  int chosen_expert = 0;
  for (int j = 0; j < p.top_k; ++j) {
    float best = -1.f;
    int best_expert = INT_MAX;
#pragma unroll
    for (int i = 0; i < PER_LANE; ++i) {
      if (e[i] > best) {  // strictly: the lower expert of equal values stays
        best = e[i];
        best_expert = lane + kWarp * i;
      }
    }
    warp_argmax(best, best_expert);
    total += best;
    if (lane == j) {
      chosen = best;
      chosen_expert = best_expert;
    }
#pragma unroll
    for (int i = 0; i < PER_LANE; ++i) {
      if (lane + kWarp * i == best_expert) e[i] = -1.f;
    }
  }
  if (lane < p.top_k) {
    const float w = p.normalize ? chosen / total : chosen;
    store(static_cast<T*>(p.weights), token * p.top_k + lane, w);
    p.experts[token * p.top_k + lane] = chosen_expert;
  }
}

template <typename T, int PER_LANE>
cudaError_t launch_with(const MoeRouteParams& p, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((p.tokens + kWarpsPerBlock - 1) / kWarpsPerBlock);
  moe_route_kernel<T, PER_LANE><<<blocks, kWarpsPerBlock * kWarp, 0, stream>>>(p);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch(const MoeRouteParams& p, cudaStream_t stream) {
  const int per_lane = (p.num_experts + kWarp - 1) / kWarp;
  if (per_lane <= 1) return launch_with<T, 1>(p, stream);
  if (per_lane <= 2) return launch_with<T, 2>(p, stream);
  if (per_lane <= 4) return launch_with<T, 4>(p, stream);
  if (per_lane <= 8) return launch_with<T, 8>(p, stream);
  if (per_lane <= 16) return launch_with<T, 16>(p, stream);
  return launch_with<T, kMaxPerLane>(p, stream);
}

}  // namespace

cudaError_t launch_moe_route(const MoeRouteParams& p, cudaStream_t stream) {
  if (p.tokens == 0) return cudaSuccess;
  if (p.num_experts < 1 || p.num_experts > kMoeRouteMaxExperts || p.top_k < 1 ||
      p.top_k > kMoeRouteMaxTopK || p.top_k > p.num_experts) {
    return cudaErrorInvalidValue;
  }
  return with_element_type(p.dtype,
                           [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, stream); });
}

}  // namespace verlpp::kernels
