// LibTorch binding of the fused query/key norm, rotary embedding and KV-cache write of a decode
// step (rope_cache_write_kernel.h): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// The per-head RMSNorms of q and k before the rotation (Qwen3's q_norm and k_norm: weights [D] of
// q's dtype, eps as the model's rms_norm_eps). Undefined weights: no norm.
struct QkNorm {
  at::Tensor q_weight, k_weight;
  double eps = 1e-6;
};

// True when this build compiled the CUDA kernels and they take these tensors: CUDA q [T, Hq, D],
// k and v [T, Hkv, D] (last dimension contiguous), cos and sin_signed [T, r] (r even, <= D),
// rows int64 [T], key_cache and value_cache [R, Hkv, D] (contiguous), all on one device and every
// floating tensor of one dtype (fp32, bf16 or fp16), D at most kRopeCacheWriteMaxHeadDim (1,024),
// and norm's weights both undefined or both contiguous [D].
bool can_rope_cache_write(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& cos, const at::Tensor& sin_signed,
                          const at::Tensor& rows, const at::Tensor& key_cache,
                          const at::Tensor& value_cache, const QkNorm& norm = {});

// Returns model::apply_rope(q, {cos, sin_signed}) [T, Hq, D] (contiguous) and stores
// apply_rope(k) and v at `rows` of key_cache and value_cache (index_copy_ along dim 0), bit-
// identical to those ATen calls; with norm's weights q and k are first model::rms_norm(q,
// norm.q_weight, norm.eps) and likewise k, bit-identical to that function on CUDA. Rows outside
// [0, R) are the caller's error (not checked: the check would wait for the device). Throws
// verlpp::Error when can_rope_cache_write is false.
at::Tensor rope_cache_write(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& cos, const at::Tensor& sin_signed,
                            const at::Tensor& rows, const at::Tensor& key_cache,
                            const at::Tensor& value_cache, const QkNorm& norm = {});

}  // namespace verlpp::kernels
