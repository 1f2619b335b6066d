// A decode step's rotary embedding and KV-cache write in one kernel: the CUDA core, with raw
// pointers and no LibTorch (the binding is rope_cache_write.h).
//
// For each token t and head h of q [T, Hq, D] and k [T, Hkv, D], with r = the rotary width
// (cos/sin_signed [T, r]) and half = r / 2, element e of the head:
//   e < r:  y[e] = x[e] * cos[t, e] + x[partner(e)] * sin_signed[t, e],
//           partner(e) = e + half for e < half, e - half otherwise (rotate_half, models.md §2),
//   e >= r: y[e] = x[e] (partial rotary passes the other channels through).
// The roundings are those of model::apply_rope on CUDA, so the result is bit-identical to it:
// bf16/fp16 round x * cos to the element type, then add the second product in fp32 with one
// rounding (ATen's mul then addcmul kernels); fp32 rounds both products and the sum.
// The rotated queries go to q_out [T, Hq, D] (contiguous); the rotated keys and the values v go
// to row rows[t] of key_cache / value_cache [R, Hkv, D] (contiguous), as index_copy_ would.
// Inputs q, k, v: last dimension contiguous, strides (stride_t, stride_h) in elements.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

struct RopeCacheWriteParams {
  const void* q;
  const void* k;
  const void* v;
  const void* cos;         // [T, rotary], contiguous
  const void* sin_signed;  // [T, rotary], contiguous
  const int64_t* rows;     // [T] cache rows, each in [0, cache_rows)
  void* q_out;             // [T, Hq, D], contiguous
  void* key_cache;         // [cache_rows, Hkv, D], contiguous
  void* value_cache;       // [cache_rows, Hkv, D], contiguous
  int64_t tokens = 0;
  int64_t q_stride_t = 0, q_stride_h = 0, k_stride_t = 0, k_stride_h = 0, v_stride_t = 0,
          v_stride_h = 0;
  int q_heads = 0, kv_heads = 0, head_dim = 0, rotary = 0;
  ElementType dtype = ElementType::f32;
};

cudaError_t launch_rope_cache_write(const RopeCacheWriteParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
