#include "verlpp/model/layers/rms_norm.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include "verlpp/core/torch_compat.h"
#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/kernels/rms_norm.h"
#include "verlpp/model/batch_invariant.h"

namespace verlpp::model {

namespace {

// n = x_c * rsqrt(mean(x_c^2) + eps) in the compute type (kernels::invariant_rms_normalized);
// backward dn -> dx = r (dn - n mean(dn n)), r = rsqrt(mean(x_c^2) + eps).
struct InvariantNormalized : torch::autograd::Function<InvariantNormalized> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                            double eps) {
    const at::Tensor n = kernels::invariant_rms_normalized(x, eps);
    ctx->save_for_backward({x, n});
    ctx->saved_data["eps"] = eps;
    return n;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& x = saved[0];
    const at::Tensor& n = saved[1];
    const at::Tensor xc = x.to(n.scalar_type());
    const at::Tensor r =
        at::rsqrt(xc.pow(2).mean(-1, /*keepdim=*/true) + ctx->saved_data["eps"].toDouble());
    const at::Tensor g = grad_out[0];
    const at::Tensor dx = r * (g - n * (g * n).mean(-1, /*keepdim=*/true));
    return {dx.to(x.scalar_type()), at::Tensor()};
  }
};

}  // namespace

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  // Batch-invariant mode on the CPU; on CUDA the mode runs the fused kernel below (a block per
  // row; model::require_batch_invariant_support checks that LibTorch has it).
  if (batch_invariant() && !x.is_cuda()) {
    return weight * InvariantNormalized::apply(x, eps).to(x.scalar_type());
  }
  if (x.is_cuda() && x.scalar_type() != at::kFloat && compat::has_fused_rms_norm()) {
    return compat::fused_rms_norm(x, weight, eps);
  }
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor normed = xf * at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return weight * normed.to(x.scalar_type());
}

}  // namespace verlpp::model

namespace verlpp::model {

namespace {

at::Tensor normalized_fp32(const at::Tensor& x, double eps) {
  const at::Tensor xf = x.to(at::kFloat);
  return xf * at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
}

// Qwen3.5's norms in verlpp's CUDA kernels (kernels/rms_norm.h), forward and backward. Two
// functions: autograd takes no undefined inputs, and the zero-centred norm has no gate z.
struct KernelZeroCenteredRmsNorm : torch::autograd::Function<KernelZeroCenteredRmsNorm> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, const at::Tensor& weight,
                                                double eps) {
    ctx->save_for_backward({x, weight});
    ctx->saved_data["eps"] = eps;
    return {kernels::rms_norm_forward(x, weight, at::Tensor(), eps)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const kernels::RmsNormGrad grad = kernels::rms_norm_backward(
        saved[0], saved[1], at::Tensor(), grad_out[0], ctx->saved_data["eps"].toDouble());
    return {grad.x, grad.weight, at::Tensor()};
  }
};

struct KernelGatedRmsNorm : torch::autograd::Function<KernelGatedRmsNorm> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, const at::Tensor& z,
                                                const at::Tensor& weight, double eps) {
    ctx->save_for_backward({x, z, weight});
    ctx->saved_data["eps"] = eps;
    return {kernels::rms_norm_forward(x, weight, z, eps)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const kernels::RmsNormGrad grad = kernels::rms_norm_backward(
        saved[0], saved[2], saved[1], grad_out[0], ctx->saved_data["eps"].toDouble());
    return {grad.x, grad.z, grad.weight, at::Tensor()};
  }
};

}  // namespace

at::Tensor zero_centered_rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  if (kernels::can_rms_norm(x, weight, at::Tensor())) {
    return KernelZeroCenteredRmsNorm::apply(x, weight, eps)[0];
  }
  return (normalized_fp32(x, eps) * (weight.to(at::kFloat) + 1.0)).to(x.scalar_type());
}

at::Tensor gated_rms_norm(const at::Tensor& o, const at::Tensor& z, const at::Tensor& weight,
                          double eps) {
  if (kernels::can_rms_norm(o, weight, z)) return KernelGatedRmsNorm::apply(o, z, weight, eps)[0];
  const at::Tensor scaled = weight * normalized_fp32(o, eps).to(o.scalar_type());
  return (scaled.to(at::kFloat) * at::silu(z.to(at::kFloat))).to(o.scalar_type());
}

}  // namespace verlpp::model
