// Rotary position embeddings (Su et al., RoFormer, arXiv:2104.09864) as transformers applies them
// to Qwen2/Qwen3/Llama (rotate_half over the two halves of head_dim) and to Qwen3.5 (partial
// rotary: only the first rotary_dim = int(head_dim * partial_rotary_factor) channels of a head
// rotate, with rotate_half over those; models.md §2).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "verlpp/model/model_config.h"

namespace verlpp::model {

// Inverse frequencies [r / 2] fp32 on the CPU, r = config.rotary_dim(): theta^(-2i/r), then
// "linear": / factor; "llama3" (transformers' _compute_llama3_parameters): wavelengths
// 2*pi/f longer than original_max / low_freq_factor are divided by factor, shorter than
// original_max / high_freq_factor kept, and those between interpolated with
// s = (original_max / wavelength - low) / (high - low): (1 - s) f / factor + s f.
at::Tensor rope_inv_freq(const ModelConfig& config);

struct RopeTables {
  at::Tensor cos;         // [tokens, r] (r = rotary_dim), the model's dtype and device
  at::Tensor sin_signed;  // sin with its first half negated: rotate_half(x) * sin equals
                          // cat(x2, x1) * sin_signed exactly, one negation fewer
};

// cos/sin of position * inv_freq, the frequencies repeated for both halves. positions: int64
// [tokens], or [3, tokens] M-RoPE streams (t, h, w) with `mrope_section` (any device). With three
// streams, frequency j takes its angle from the h stream when j % 3 == 1 and j < 3 section[1], the
// w stream when j % 3 == 2 and j < 3 section[2], else the t stream (transformers'
// apply_interleaved_mrope, Qwen3.5; multimodal.md §5.4). Angles computed in fp32, then cast to
// `dtype` (in batch-invariant mode their cos/sin from kernels::invariant_cos_sin).
RopeTables rope_tables(const at::Tensor& inv_freq, const at::Tensor& positions,
                       at::ScalarType dtype, const std::vector<int64_t>& mrope_section = {});

// x [tokens, heads, head_dim] -> x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1)
// (transformers' apply_rotary_pos_emb) on the first r channels (the tables' width), the others
// passed through. bf16/fp16 on CUDA: the sum and second product in one
// addcmul kernel (one rounding fewer); elsewhere bit-identical to transformers' formula.
at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables);

}  // namespace verlpp::model
