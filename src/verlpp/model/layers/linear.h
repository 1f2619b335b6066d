// y = x W^T + b, the projections of every layer (weights [out, in] as Hugging Face stores them).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/linear.h>

#include <cstdint>
#include <string>

namespace verlpp::model {

class WeightTable;

struct Linear {
  at::Tensor weight;  // [out, in]
  at::Tensor bias;    // [out] or undefined
  at::Tensor operator()(const at::Tensor& x) const { return at::linear(x, weight, bias); }
};

// Declares NAME.weight [out, in] (random init normal) and, with `bias`, NAME.bias [out] (zeros).
// shape_from: the config.json fields out and in come from.
void declare_linear(WeightTable& table, const std::string& name, int64_t layer, Linear& linear,
                    int64_t out, int64_t in, bool bias, const std::string& shape_from);

}  // namespace verlpp::model
