// y = x W^T + b, the projections of every layer (weights [out, in] as Hugging Face stores them).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace verlpp::model {

class WeightTable;

// x [..., in] -> x weight^T + bias [..., out]: at::linear, or in batch-invariant mode
// (model/batch_invariant.h) kernels::invariant_linear with gradients from at::linear's formulas.
at::Tensor linear(const at::Tensor& x, const at::Tensor& weight,
                  const at::Tensor& bias = at::Tensor());

struct Linear {
  at::Tensor weight;  // [out, in]
  at::Tensor bias;    // [out] or undefined
  at::Tensor operator()(const at::Tensor& x) const { return model::linear(x, weight, bias); }
};

// Logits fp32 [T, V] of hidden [T, H] and a weight [V, H] of the model's dtype: one GEMM writing
// fp32 (compat::mm_fp32), or in batch-invariant mode kernels::invariant_linear (not
// differentiable there; the log-prob's own backward recomputes them).
at::Tensor logits_fp32(const at::Tensor& hidden, const at::Tensor& weight);

// Declares NAME.weight [out, in] (random init normal) and, with `bias`, NAME.bias [out] (zeros).
// shape_from: the config.json fields out and in come from.
void declare_linear(WeightTable& table, const std::string& name, int64_t layer, Linear& linear,
                    int64_t out, int64_t in, bool bias, const std::string& shape_from);

}  // namespace verlpp::model
