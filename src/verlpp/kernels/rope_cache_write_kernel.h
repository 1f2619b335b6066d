// A decode step's per-head query/key norm (Qwen3's q_norm and k_norm), rotary embedding and
// KV-cache write in one kernel: the CUDA core, with raw pointers and no LibTorch (the binding is
// rope_cache_write.h).
//
// For each token t and head h of q [T, Hq, D] and k [T, Hkv, D], with r = the rotary width
// (cos/sin_signed [T, r]) and half = r / 2:
//   with norm weights (q_norm_weight, k_norm_weight [D]), the head x is first replaced by the
//   scaled RMSNorm over its D elements, x <- T(w T(x_f rsqrt(mean(x_f^2) + eps))), computed as
//   rms_norm_kernel.h computes a row (rms_norm_row.cuh: the same sum order), so bit-identical to
//   model::rms_norm on CUDA;
//   then element e of the head:
//   e < r:  y[e] = x[e] * cos[t, e] + x[partner(e)] * sin_signed[t, e],
//           partner(e) = e + half for e < half, e - half otherwise (rotate_half, models.md §2),
//   e >= r: y[e] = x[e] (partial rotary passes the other channels through).
// The roundings are those of model::apply_rope on CUDA, so the result is bit-identical to it:
// bf16/fp16 round x * cos to the element type, then add the second product in fp32 with one
// rounding (ATen's mul then addcmul kernels); fp32 rounds both products and the sum.
// The rotated queries go to q_out [T, Hq, D] (contiguous); the rotated keys and the values v go
// to row rows[t] of key_cache / value_cache [R, Hkv, D] (contiguous), as index_copy_ would.
// Inputs q, k, v: last dimension contiguous, strides (stride_t, stride_h) in elements.
// One warp per head; head_dim at most kRopeCacheWriteMaxHeadDim (a warp's head sits in shared
// memory between the norm and the rotation).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

constexpr int kRopeCacheWriteMaxHeadDim = 1024;

struct RopeCacheWriteParams {
  const void* q;
  const void* k;
  const void* v;
  const void* cos;            // [T, rotary], contiguous
  const void* sin_signed;     // [T, rotary], contiguous
  const int64_t* rows;        // [T] cache rows, each in [0, cache_rows)
  const void* q_norm_weight;  // [D] or nullptr (then k_norm_weight is nullptr too: no norm)
  const void* k_norm_weight;  // [D] or nullptr
  void* q_out;                // [T, Hq, D], contiguous
  void* key_cache;            // [cache_rows, Hkv, D], contiguous
  void* value_cache;          // [cache_rows, Hkv, D], contiguous
  int64_t tokens = 0;
  int64_t q_stride_t = 0, q_stride_h = 0, k_stride_t = 0, k_stride_h = 0, v_stride_t = 0,
          v_stride_h = 0;
  int q_heads = 0, kv_heads = 0, head_dim = 0, rotary = 0;
  float eps = 1e-6f;  // the norm's epsilon
  ElementType dtype = ElementType::f32;
};

cudaError_t launch_rope_cache_write(const RopeCacheWriteParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
