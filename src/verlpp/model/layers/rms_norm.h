// The RMSNorms of the decoders here (models.md §2, §7.1), each as transformers computes it:
//   rms_norm                 Llama/Qwen2/Qwen3/Qwen3-MoE (LlamaRMSNorm): normalise in fp32, cast
//                            back, then scale: weight * cast(x * rsqrt(mean(x^2) + eps))
//   zero_centered_rms_norm   Qwen3.5 (Qwen3_5RMSNorm): weights stored as offsets from 1, one
//                            rounding: cast(x_f * rsqrt(mean(x_f^2) + eps) * (1 + w_f))
//   gated_rms_norm           Qwen3.5's Gated DeltaNet output (Qwen3_5RMSNormGated): a plain weight,
//                            cast(w * cast(o_f * rsqrt(mean(o_f^2) + eps)) * silu(z_f))
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::model {

// x [..., H], weight [H] of x's dtype -> [..., H]. bf16/fp16 on CUDA: ATen's fused kernel where
// LibTorch has it (one rounding fewer; compat::fused_rms_norm); elsewhere transformers' formula,
// in batch-invariant mode (model/batch_invariant.h) with kernels::invariant_rms_normalized's rows.
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// x [..., H], weight [H] (the offset w; init 0) -> [..., H] in x's dtype. On CUDA with weight of
// x's dtype: verlpp's kernel (kernels/rms_norm.h; the same roundings, fp32 sums in another order).
at::Tensor zero_centered_rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// o, z [..., H] of one dtype, weight [H] -> [..., H] in o's dtype; the product with w in w's dtype
// (the model's), the gate silu(z) in fp32. On CUDA with all three of one dtype: verlpp's kernel.
at::Tensor gated_rms_norm(const at::Tensor& o, const at::Tensor& z, const at::Tensor& weight,
                          double eps);

}  // namespace verlpp::model
