#include "verlpp/model/layers/mlp.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/kernels/silu_mul.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

namespace {

struct InvariantSilu : torch::autograd::Function<InvariantSilu> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x) {
    ctx->save_for_backward({x});
    return kernels::invariant_silu(x);
  }

  // d silu / dx = s (1 + x (1 - s)), s = sigmoid(x).
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const at::Tensor x = ctx->get_saved_variables()[0];
    const at::Tensor s = at::sigmoid(x);
    return {grad_out[0] * s * (1 + x * (1 - s))};
  }
};

}  // namespace

at::Tensor silu(const at::Tensor& x) {
  return batch_invariant() ? InvariantSilu::apply(x) : at::silu(x);
}

void declare_mlp(WeightTable& table, const std::string& prefix, int64_t layer, MlpWeights& w,
                 int64_t hidden, int64_t intermediate, bool bias) {
  const std::string from = "intermediate_size, hidden_size";
  declare_linear(table, prefix + "gate_proj", layer, w.gate_proj, intermediate, hidden, bias, from);
  declare_linear(table, prefix + "up_proj", layer, w.up_proj, intermediate, hidden, bias, from);
  declare_linear(table, prefix + "down_proj", layer, w.down_proj, hidden, intermediate, bias, from);
}

at::Tensor swiglu(const MlpWeights& w, const at::Tensor& x) {
  const at::Tensor gate = w.gate_proj(x);
  const at::Tensor up = w.up_proj(x);
  if (!at::GradMode::is_enabled() && kernels::can_silu_mul(gate, up)) {
    return w.down_proj(kernels::silu_mul(gate, up));
  }
  return w.down_proj(model::silu(gate) * up);
}

}  // namespace verlpp::model
