// LibTorch binding of the fused rotary embedding and KV-cache write of a decode step
// (rope_cache_write_kernel.h): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take these tensors: CUDA q [T, Hq, D],
// k and v [T, Hkv, D] (last dimension contiguous), cos and sin_signed [T, r] (r even, <= D),
// rows int64 [T], key_cache and value_cache [R, Hkv, D] (contiguous), all on one device and every
// floating tensor of one dtype (fp32, bf16 or fp16).
bool can_rope_cache_write(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& cos, const at::Tensor& sin_signed,
                          const at::Tensor& rows, const at::Tensor& key_cache,
                          const at::Tensor& value_cache);

// Returns model::apply_rope(q, {cos, sin_signed}) [T, Hq, D] (contiguous) and stores
// apply_rope(k) and v at `rows` of key_cache and value_cache (index_copy_ along dim 0), bit-
// identical to those ATen calls. Rows outside [0, R) are the caller's error (not checked: the
// check would wait for the device). Throws verlpp::Error when can_rope_cache_write is false.
at::Tensor rope_cache_write(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& cos, const at::Tensor& sin_signed,
                            const at::Tensor& rows, const at::Tensor& key_cache,
                            const at::Tensor& value_cache);

}  // namespace verlpp::kernels
