#include "verlpp/model/layers/linear.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include "verlpp/core/torch_compat.h"
#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

namespace {

// bias: [out], or [0] for none (autograd's inputs are defined tensors).
struct InvariantLinear : torch::autograd::Function<InvariantLinear> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                            const at::Tensor& weight, const at::Tensor& bias) {
    ctx->save_for_backward({x, weight, bias});
    const at::Tensor rows = x.reshape({-1, x.size(-1)});
    const at::Tensor y = kernels::invariant_linear(rows, weight, bias.numel() ? bias : at::Tensor(),
                                                   x.scalar_type());
    std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
    shape.back() = weight.size(0);
    return y.view(shape);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& x = saved[0];
    const at::Tensor& weight = saved[1];
    const at::Tensor g = grad_out[0].reshape({-1, weight.size(0)});
    const at::Tensor grad_x = at::matmul(g, weight).view(x.sizes());
    const at::Tensor grad_w = at::matmul(g.t(), x.reshape({-1, x.size(-1)}));
    return {grad_x, grad_w, saved[2].numel() ? g.sum(0) : at::Tensor()};
  }
};

}  // namespace

at::Tensor linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  if (!batch_invariant()) return at::linear(x, weight, bias);
  return InvariantLinear::apply(x, weight, bias.defined() ? bias : at::empty({0}, x.options()));
}

at::Tensor logits_fp32(const at::Tensor& hidden, const at::Tensor& weight) {
  if (batch_invariant()) return kernels::invariant_linear(hidden, weight, at::Tensor(), at::kFloat);
  return compat::mm_fp32(hidden, weight.t());
}

void declare_linear(WeightTable& table, const std::string& name, int64_t layer, Linear& linear,
                    int64_t out, int64_t in, bool bias, const std::string& shape_from) {
  table.add(
      {name + ".weight", {out, in}, WeightInit::normal, layer, 0, shape_from, {}, &linear.weight});
  if (bias) {
    table.add({name + ".bias", {out}, WeightInit::zeros, layer, 0, shape_from, {}, &linear.bias});
  }
}

}  // namespace verlpp::model
