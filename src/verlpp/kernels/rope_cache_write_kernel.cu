#include "verlpp/kernels/rope_cache_write_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kThreads = 256;

// apply_rope's arithmetic for one element (rope_cache_write_kernel.h): x * cos rounded to the
// element type, then the second product added with one rounding (ATen's addcmul).
template <typename T>
__device__ float rotated(float x, float partner, float c, float s, const T* type) {
  return __fmaf_rn(partner, s, round_to(__fmul_rn(x, c), type));
}

// fp32: x * cos + partner * sin, each product and the sum rounded (two mul kernels and an add).
template <>
__device__ float rotated<float>(float x, float partner, float c, float s, const float*) {
  return __fadd_rn(__fmul_rn(x, c), __fmul_rn(partner, s));
}

// Element e of one head vector x (contiguous over e) after the rotary embedding of token t.
template <typename T>
__device__ float rope_element(const RopeCacheWriteParams& p, const T* x, int64_t t, int e) {
  if (e >= p.rotary) return load(x, e);
  const int half = p.rotary / 2;
  const int partner = e < half ? e + half : e - half;
  const int64_t at = t * p.rotary + e;
  return rotated(load(x, e), load(x, partner), load(static_cast<const T*>(p.cos), at),
                 load(static_cast<const T*>(p.sin_signed), at), x);
}

// Thread i: element e of head slot s of token t, slots [0, Hq) the queries, [Hq, Hq + Hkv) the
// keys, [Hq + Hkv, Hq + 2 Hkv) the values.
template <typename T>
__global__ void rope_cache_write_kernel(RopeCacheWriteParams p) {
  const int slots = p.q_heads + 2 * p.kv_heads;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.tokens * slots * p.head_dim) return;
  const int e = static_cast<int>(i % p.head_dim);
  const int slot = static_cast<int>((i / p.head_dim) % slots);
  const int64_t t = i / (static_cast<int64_t>(p.head_dim) * slots);
  if (slot < p.q_heads) {
    const T* x = static_cast<const T*>(p.q) + t * p.q_stride_t + slot * p.q_stride_h;
    store(static_cast<T*>(p.q_out), (t * p.q_heads + slot) * p.head_dim + e,
          rope_element(p, x, t, e));
    return;
  }
  const int64_t cache_at = (p.rows[t] * p.kv_heads) * p.head_dim + e;
  if (slot < p.q_heads + p.kv_heads) {
    const int h = slot - p.q_heads;
    const T* x = static_cast<const T*>(p.k) + t * p.k_stride_t + h * p.k_stride_h;
    store(static_cast<T*>(p.key_cache), cache_at + h * p.head_dim, rope_element(p, x, t, e));
    return;
  }
  const int h = slot - p.q_heads - p.kv_heads;
  const T* x = static_cast<const T*>(p.v) + t * p.v_stride_t + h * p.v_stride_h;
  static_cast<T*>(p.value_cache)[cache_at + h * p.head_dim] = x[e];
}

template <typename T>
cudaError_t launch(const RopeCacheWriteParams& p, cudaStream_t stream) {
  const int64_t threads =
      p.tokens * (p.q_heads + 2 * static_cast<int64_t>(p.kv_heads)) * p.head_dim;
  const auto blocks = static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  rope_cache_write_kernel<T><<<blocks, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_rope_cache_write(const RopeCacheWriteParams& p, cudaStream_t stream) {
  if (p.tokens == 0 || p.head_dim == 0) return cudaSuccess;
  return with_element_type(p.dtype,
                           [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, stream); });
}

}  // namespace verlpp::kernels
