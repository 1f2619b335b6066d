// RMSNorm as transformers' Llama/Qwen2/Qwen3/Qwen3-MoE compute it (LlamaRMSNorm): normalise in
// fp32, cast back, then scale: weight * cast(x * rsqrt(mean(x^2) + eps)) (models.md §1).
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::model {

// x [..., H], weight [H] of x's dtype -> [..., H]. bf16/fp16 on CUDA: ATen's fused kernel where
// LibTorch has it (one rounding fewer; compat::fused_rms_norm); elsewhere transformers' formula.
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

}  // namespace verlpp::model
