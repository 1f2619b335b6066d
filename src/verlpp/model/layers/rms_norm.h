// The RMSNorms of the decoders here (models.md §2, §7.1), each as transformers computes it:
//   rms_norm                 Llama/Qwen2/Qwen3/Qwen3-MoE (LlamaRMSNorm): normalise in fp32, cast
//                            back, then scale: weight * cast(x * rsqrt(mean(x^2) + eps))
//   zero_centered_rms_norm   Qwen3.5 (Qwen3_5RMSNorm): weights stored as offsets from 1, one
//                            rounding: cast(x_f * rsqrt(mean(x_f^2) + eps) * (1 + w_f))
//   gated_rms_norm           Qwen3.5's Gated DeltaNet output (Qwen3_5RMSNormGated): a plain weight,
//                            cast(w * cast(o_f * rsqrt(mean(o_f^2) + eps)) * silu(z_f))
// On CUDA with weights of x's dtype each runs as verlpp's kernel (kernels/rms_norm.h: the same
// roundings, the fp32 sum of squares in its own order), forward and backward, so the trainer and
// the rollout normalise with the same bits; elsewhere as ATen ops of the formula.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::model {

// x [..., H], weight [H] of x's dtype -> [..., H].
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// x [..., H], weight [H] (the offset w; init 0) -> [..., H] in x's dtype.
at::Tensor zero_centered_rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// o, z [..., H] of one dtype, weight [H] -> [..., H] in o's dtype; the product with w in w's dtype
// (the model's), the gate silu(z) in fp32.
at::Tensor gated_rms_norm(const at::Tensor& o, const at::Tensor& z, const at::Tensor& weight,
                          double eps);

// The residual stream's add and the norm after it: sum = x + delta (x and delta [..., H] of one
// dtype) and normed = rms_norm(sum) or zero_centered_rms_norm(sum). Without autograd on CUDA one
// kernel (vLLM's fused_add_rms_norm), bit-identical to the two steps.
struct AddNorm {
  at::Tensor sum, normed;
};
AddNorm add_rms_norm(const at::Tensor& x, const at::Tensor& delta, const at::Tensor& weight,
                     double eps);
AddNorm add_zero_centered_rms_norm(const at::Tensor& x, const at::Tensor& delta,
                                   const at::Tensor& weight, double eps);

}  // namespace verlpp::model
