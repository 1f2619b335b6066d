// The three RMSNorms of verlpp's kernel (rms_norm_kernel.h has their formulas and roundings):
// shared by the CUDA core and its LibTorch binding, which may not include each other.
#pragma once

namespace verlpp::kernels {

enum class RmsNormKind {
  scaled,         // Llama/Qwen2/Qwen3/Qwen3-MoE (transformers' LlamaRMSNorm): y = T(w_f T(n))
  zero_centered,  // Qwen3.5 (Qwen3_5RMSNorm): y = T(n (1 + w_f))
  gated,  // Qwen3.5's Gated DeltaNet output (Qwen3_5RMSNormGated): y = T(T(w T(n)) silu(z_f))
};

}  // namespace verlpp::kernels
