#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstddef>

#include "verlpp/kernels/decode_attention_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kVecBytes = 16;  // one load of a lane: 8 bf16/fp16 elements
constexpr float kLog2e = 1.4426950408889634f;

__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ float to_float(__half x) { return __half2float(x); }

template <typename T>
__device__ T from_float(float x);
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}
template <>
__device__ __half from_float<__half>(float x) {
  return __float2half(x);
}

// kDims consecutive elements, loaded in one access.
template <typename T, int kDims>
struct alignas(sizeof(T) * kDims) Vec {
  T v[kDims];
};

template <typename T, int kDims>
__device__ void to_floats(const Vec<T, kDims>& x, float (&out)[kDims]) {
#pragma unroll
  for (int i = 0; i < kDims; ++i) out[i] = to_float(x.v[i]);
}

// Sum (or maximum) over the lanes whose ids differ only in the bits from kFrom up to kTo (both
// powers of two, kFrom <= kTo <= 16): a reduction within groups of 2 * kTo lanes, across lanes
// kFrom apart.
template <int kFrom, int kTo>
__device__ float lanes_sum(float x) {
#pragma unroll
  for (int offset = kTo; offset >= kFrom; offset >>= 1)
    x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}
template <int kFrom, int kTo>
__device__ float lanes_max(float x) {
#pragma unroll
  for (int offset = kTo; offset >= kFrom; offset >>= 1) {
    x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  }
  return x;
}

// How a warp reads keys of head_dim D: kLanes lanes share one key row (kVecBytes each), so a warp
// reads kGroups keys in one load, kUnroll loads in flight (fewer with large query groups G, whose
// accumulators take the registers).
template <typename T, int D, int G>
struct Layout {
  static constexpr int kDims = kVecBytes / sizeof(T);
  static constexpr int kLanes = D / kDims;
  static constexpr int kGroups = 32 / kLanes;
  static constexpr int kUnroll = G <= 4 ? 4 : 2;
  static constexpr int kTile = kGroups * kUnroll;  // keys a warp takes at once
};

// One block: keys [split * keys_per_split, ...) of sequence blockIdx.z for kv head blockIdx.y and
// its G query heads. Warp w takes tiles of kTile keys w, w + kWarps, ...: lane group j (kLanes
// lanes, kDims dimensions each) takes keys j, j + kGroups, ... of the tile. Per tile the warp
// computes all scores, their maximum m (the same in every lane), then adds exp2(score - m) and the
// weighted values to its group's sums, rescaled once per tile (the online softmax over tiles).
// The groups' and warps' sums are merged at the end; the block writes the final output when there
// is one split, else its partial state.
template <typename T, int D, int G>
__global__ void __launch_bounds__(kThreads) split_kernel(DecodeAttentionParams p) {
  using L = Layout<T, D, G>;
  constexpr int kDims = L::kDims, kLanes = L::kLanes, kGroups = L::kGroups;
  constexpr int kUnroll = L::kUnroll, kTile = L::kTile;
  const int split = blockIdx.x, kv = blockIdx.y, n = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = lane / kLanes, dim0 = (lane % kLanes) * kDims;
  const int length = p.lengths[n];
  const int begin = split * p.keys_per_split;
  const int end = min(begin + p.keys_per_split, length);

  const T* q = static_cast<const T*>(p.q) + (static_cast<size_t>(n) * p.heads + kv * G) * D + dim0;
  float qf[G][kDims];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    to_floats<T, kDims>(*reinterpret_cast<const Vec<T, kDims>*>(q + g * D), qf[g]);
#pragma unroll
    for (int i = 0; i < kDims; ++i) qf[g][i] *= p.scale * kLog2e;
  }
  float max_score[G], exp_sum[G], acc[G][kDims];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    max_score[g] = -INFINITY;
    exp_sum[g] = 0.0f;
#pragma unroll
    for (int i = 0; i < kDims; ++i) acc[g][i] = 0.0f;
  }
  const size_t row_stride = static_cast<size_t>(p.kv_heads) * D;
  const T* keys = static_cast<const T*>(p.k_cache) + static_cast<size_t>(kv) * D + dim0;
  const T* values = static_cast<const T*>(p.v_cache) + static_cast<size_t>(kv) * D + dim0;
  const int32_t* page_list = p.pages != nullptr ? p.pages + p.page_offsets[n] : nullptr;
  const size_t first_row = page_list == nullptr ? static_cast<size_t>(p.starts[n]) : 0;
  const int page_mask = (1 << p.page_shift) - 1;
  for (int t0 = begin + warp * kTile; t0 < end; t0 += kWarps * kTile) {
    Vec<T, kDims> k_raw[kUnroll], v_raw[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int t = min(t0 + u * kGroups + group, end - 1);  // in range; masked below
      const size_t cache_row =
          page_list == nullptr
              ? first_row + t
              : (static_cast<size_t>(page_list[t >> p.page_shift]) << p.page_shift) +
                    (t & page_mask);
      const size_t row = cache_row * row_stride;
      k_raw[u] = *reinterpret_cast<const Vec<T, kDims>*>(keys + row);
      v_raw[u] = *reinterpret_cast<const Vec<T, kDims>*>(values + row);
    }
    float score[G][kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      float kf[kDims];
      to_floats<T, kDims>(k_raw[u], kf);
      const bool valid = t0 + u * kGroups + group < end;
#pragma unroll
      for (int g = 0; g < G; ++g) {
        float dot = 0.0f;
#pragma unroll
        for (int i = 0; i < kDims; ++i) dot += qf[g][i] * kf[i];
        dot = lanes_sum<1, kLanes / 2>(dot);
        score[g][u] = valid ? dot : -INFINITY;
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float tile_max = score[g][0];
#pragma unroll
      for (int u = 1; u < kUnroll; ++u) tile_max = fmaxf(tile_max, score[g][u]);
      if constexpr (kGroups > 1) tile_max = lanes_max<kLanes, 16>(tile_max);
      const float m_new = fmaxf(max_score[g], tile_max);  // finite: key t0 is in range
      const float correction = exp2f(max_score[g] - m_new);
      max_score[g] = m_new;
      exp_sum[g] *= correction;
#pragma unroll
      for (int i = 0; i < kDims; ++i) acc[g][i] *= correction;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const float weight = exp2f(score[g][u] - m_new);
        float vf[kDims];
        to_floats<T, kDims>(v_raw[u], vf);
        exp_sum[g] += weight;
#pragma unroll
        for (int i = 0; i < kDims; ++i) acc[g][i] += weight * vf[i];
      }
    }
  }
  // The lane groups share m: their sums add.
  if constexpr (kGroups > 1) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      exp_sum[g] = lanes_sum<kLanes, 16>(exp_sum[g]);
#pragma unroll
      for (int i = 0; i < kDims; ++i) acc[g][i] = lanes_sum<kLanes, 16>(acc[g][i]);
    }
  }

  __shared__ float shared_m[kWarps][G], shared_l[kWarps][G];
  __shared__ float shared_acc[kWarps][G][D];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    if (lane == 0) {
      shared_m[warp][g] = max_score[g];
      shared_l[warp][g] = exp_sum[g];
    }
    if (group == 0) {
#pragma unroll
      for (int i = 0; i < kDims; ++i) shared_acc[warp][g][dim0 + i] = acc[g][i];
    }
  }
  __syncthreads();
  for (int index = threadIdx.x; index < G * D; index += kThreads) {
    const int g = index / D, d = index % D;
    float m = -INFINITY;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) m = fmaxf(m, shared_m[w][g]);
    float l = 0.0f, o = 0.0f;
    if (m != -INFINITY) {
#pragma unroll
      for (int w = 0; w < kWarps; ++w) {
        const float c = exp2f(shared_m[w][g] - m);
        l += shared_l[w][g] * c;
        o += shared_acc[w][g][d] * c;
      }
    }
    const size_t head = static_cast<size_t>(n) * p.heads + kv * G + g;
    if (p.splits == 1) {
      static_cast<T*>(p.out)[head * D + d] = from_float<T>(l > 0.0f ? o / l : 0.0f);
    } else {
      const size_t slot = head * p.splits + split;
      p.partial_out[slot * D + d] = o;
      if (d == 0) {
        p.partial_max[slot] = m;
        p.partial_sum[slot] = l;
      }
    }
  }
}

// One block per (query head, sequence), one thread per dimension: merges the splits' states.
template <typename T, int D>
__global__ void __launch_bounds__(D) merge_kernel(DecodeAttentionParams p) {
  const int h = blockIdx.x, n = blockIdx.y, d = threadIdx.x;
  const size_t head = static_cast<size_t>(n) * p.heads + h;
  const size_t base = head * p.splits;
  float m = -INFINITY;
  for (int s = 0; s < p.splits; ++s) m = fmaxf(m, p.partial_max[base + s]);
  float l = 0.0f, o = 0.0f;
  if (m != -INFINITY) {
    for (int s = 0; s < p.splits; ++s) {
      const float c = exp2f(p.partial_max[base + s] - m);
      l += p.partial_sum[base + s] * c;
      o += p.partial_out[(base + s) * D + d] * c;
    }
  }
  static_cast<T*>(p.out)[head * D + d] = from_float<T>(l > 0.0f ? o / l : 0.0f);
}

template <typename T, int D, int G>
void launch_split(const DecodeAttentionParams& p, cudaStream_t stream) {
  const dim3 grid(p.splits, p.kv_heads, p.num_seqs);
  split_kernel<T, D, G><<<grid, kThreads, 0, stream>>>(p);
}

template <typename T, int D>
cudaError_t launch_typed(const DecodeAttentionParams& p, cudaStream_t stream) {
  switch (p.heads / p.kv_heads) {
    case 1:
      launch_split<T, D, 1>(p, stream);
      break;
    case 2:
      launch_split<T, D, 2>(p, stream);
      break;
    case 3:
      launch_split<T, D, 3>(p, stream);
      break;
    case 4:
      launch_split<T, D, 4>(p, stream);
      break;
    case 5:
      launch_split<T, D, 5>(p, stream);
      break;
    case 6:
      launch_split<T, D, 6>(p, stream);
      break;
    case 7:
      launch_split<T, D, 7>(p, stream);
      break;
    case 8:
      launch_split<T, D, 8>(p, stream);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  if (p.splits > 1) merge_kernel<T, D><<<dim3(p.heads, p.num_seqs), D, 0, stream>>>(p);
  return cudaGetLastError();
}

template <typename T>
cudaError_t launch_dim(const DecodeAttentionParams& p, cudaStream_t stream) {
  if (p.head_dim == 64) return launch_typed<T, 64>(p, stream);
  if (p.head_dim == 128) return launch_typed<T, 128>(p, stream);
  if (p.head_dim == 256) return launch_typed<T, 256>(p, stream);
  return cudaErrorInvalidValue;
}

}  // namespace

bool decode_attention_supported(int heads, int kv_heads, int head_dim) {
  return (head_dim == 64 || head_dim == 128 || head_dim == 256) && kv_heads > 0 &&
         heads % kv_heads == 0 && heads / kv_heads >= 1 && heads / kv_heads <= 8;
}

cudaError_t launch_decode_attention(const DecodeAttentionParams& params, cudaStream_t stream) {
  if (!decode_attention_supported(params.heads, params.kv_heads, params.head_dim) ||
      params.num_seqs < 1 || params.splits < 1 || params.keys_per_split < 1) {
    return cudaErrorInvalidValue;
  }
  return params.bf16 ? launch_dim<__nv_bfloat16>(params, stream)
                     : launch_dim<__half>(params, stream);
}

}  // namespace verlpp::kernels
