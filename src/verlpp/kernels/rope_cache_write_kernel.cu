#include "verlpp/kernels/rms_norm_row.cuh"
#include "verlpp/kernels/rope_cache_write_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kWarps = 4;

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

// One head's work: read x, optionally normalise with norm_weight, rotate, write to out.
template <typename T>
struct HeadJob {
  const T* x;
  T* out;
  const T* norm_weight;
  bool rotate;
};

// Head slot s of token t: slots [0, Hq) the queries, [Hq, Hq + Hkv) the keys, [Hq + Hkv,
// Hq + 2 Hkv) the values.
template <typename T>
__device__ HeadJob<T> head_job(const RopeCacheWriteParams& p, int64_t t, int slot) {
  const int64_t D = p.head_dim;
  if (slot < p.q_heads) {
    return {static_cast<const T*>(p.q) + t * p.q_stride_t + slot * p.q_stride_h,
            static_cast<T*>(p.q_out) + (t * p.q_heads + slot) * D,
            static_cast<const T*>(p.q_norm_weight), true};
  }
  const int64_t cache_at = p.rows[t] * p.kv_heads * D;
  if (slot < p.q_heads + p.kv_heads) {
    const int h = slot - p.q_heads;
    return {static_cast<const T*>(p.k) + t * p.k_stride_t + h * p.k_stride_h,
            static_cast<T*>(p.key_cache) + cache_at + h * D, static_cast<const T*>(p.k_norm_weight),
            true};
  }
  const int h = slot - p.q_heads - p.kv_heads;
  return {static_cast<const T*>(p.v) + t * p.v_stride_t + h * p.v_stride_h,
          static_cast<T*>(p.value_cache) + cache_at + h * D, nullptr, false};
}

// The head the rotation reads, into `head` (D floats): x, or its norm rounded to T.
template <typename T>
__device__ void load_head(const RopeCacheWriteParams& p, const HeadJob<T>& job, float* head,
                          int lane) {
  if (job.norm_weight == nullptr) {
    for (int e = lane; e < p.head_dim; e += 32) head[e] = load(job.x, e);
    return;
  }
  const float r = rms_row::inverse_rms(job.x, p.head_dim, p.eps, lane);
  for (int e = lane; e < p.head_dim; e += 32) {
    const float normed = rms_row::scaled_normed(load(job.x, e), load(job.norm_weight, e), r, job.x);
    head[e] = round_to(normed, job.x);
  }
}

// Element e of the head after the rotary embedding of token t.
template <typename T>
__device__ float rope_element(const RopeCacheWriteParams& p, const float* head, int64_t t, int e) {
  if (e >= p.rotary) return head[e];
  const int half = p.rotary / 2;
  const int partner = e < half ? e + half : e - half;
  const int64_t at = t * p.rotary + e;
  const T* type = nullptr;
  return rotated(head[e], head[partner], load(static_cast<const T*>(p.cos), at),
                 load(static_cast<const T*>(p.sin_signed), at), type);
}

// One warp per (token, head slot); the warp's head waits in shared memory between the norm and
// the rotation (a partner element belongs to another lane).
template <typename T>
__global__ void rope_cache_write_kernel(RopeCacheWriteParams p) {
  extern __shared__ float heads[];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int slots = p.q_heads + 2 * p.kv_heads;
  const int64_t item = static_cast<int64_t>(blockIdx.x) * kWarps + warp;
  if (item >= p.tokens * slots) return;
  const int64_t t = item / slots;
  const HeadJob<T> job = head_job<T>(p, t, static_cast<int>(item % slots));
  if (!job.rotate) {
    for (int e = lane; e < p.head_dim; e += 32) job.out[e] = job.x[e];
    return;
  }
  float* head = heads + warp * p.head_dim;
  load_head(p, job, head, lane);
  __syncwarp();
  for (int e = lane; e < p.head_dim; e += 32) store(job.out, e, rope_element<T>(p, head, t, e));
}

template <typename T>
cudaError_t launch(const RopeCacheWriteParams& p, cudaStream_t stream) {
  const int64_t items = p.tokens * (p.q_heads + 2 * static_cast<int64_t>(p.kv_heads));
  const auto blocks = static_cast<unsigned>((items + kWarps - 1) / kWarps);
  const size_t shared = sizeof(float) * kWarps * static_cast<size_t>(p.head_dim);
  rope_cache_write_kernel<T><<<blocks, kWarps * 32, shared, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_rope_cache_write(const RopeCacheWriteParams& p, cudaStream_t stream) {
  if (p.tokens == 0 || p.head_dim == 0) return cudaSuccess;
  if (p.head_dim > kRopeCacheWriteMaxHeadDim) return cudaErrorInvalidValue;
  return with_element_type(p.dtype,
                           [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, stream); });
}

}  // namespace verlpp::kernels
