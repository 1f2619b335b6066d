// The dense SwiGLU feed-forward of Llama/Qwen: down_proj(silu(gate_proj(x)) * up_proj(x))
// (transformers' Qwen2MLP/Qwen3MLP/LlamaMLP/Qwen3MoeMLP).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "verlpp/model/layers/linear.h"

namespace verlpp::model {

class WeightTable;

struct MlpWeights {
  Linear gate_proj, up_proj, down_proj;
};

// Declares PREFIX{gate_proj,up_proj,down_proj}.weight (and .bias with `bias`): [intermediate,
// hidden], [intermediate, hidden], [hidden, intermediate].
void declare_mlp(WeightTable& table, const std::string& prefix, int64_t layer, MlpWeights& w,
                 int64_t hidden, int64_t intermediate, bool bias);

// silu(x) = x sigmoid(x) in x's dtype: at::silu, or in batch-invariant mode
// (model/batch_invariant.h) kernels::invariant_silu with at::silu's gradient.
at::Tensor silu(const at::Tensor& x);

// x [T, hidden] -> [T, hidden]: down_proj(silu(gate_proj(x)) * up_proj(x)); without autograd on
// CUDA the silu and the product as one kernel (kernels/silu_mul.h, the same bits).
at::Tensor swiglu(const MlpWeights& w, const at::Tensor& x);

}  // namespace verlpp::model
