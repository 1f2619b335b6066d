#include "verlpp/model/layers/rms_norm.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/kernels/rms_norm.h"
#include "verlpp/model/batch_invariant.h"

namespace verlpp::model {

namespace {

using kernels::RmsNormKind;

at::Tensor normalized_fp32(const at::Tensor& x, double eps) {
  const at::Tensor xf = x.to(at::kFloat);
  return xf * at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
}

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

// A norm without a gate in verlpp's CUDA kernels (kernels/rms_norm.h), forward and backward. Two
// functions: autograd takes no undefined inputs, and only the gated norm has a gate z.
struct KernelRmsNorm : torch::autograd::Function<KernelRmsNorm> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, const at::Tensor& weight,
                                                double eps, bool zero_centered) {
    ctx->save_for_backward({x, weight});
    ctx->saved_data["eps"] = eps;
    ctx->saved_data["zero_centered"] = zero_centered;
    return {kernels::rms_norm_forward(x, weight, at::Tensor(), eps, kind(zero_centered))};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const kernels::RmsNormGrad grad = kernels::rms_norm_backward(
        saved[0], saved[1], at::Tensor(), grad_out[0], ctx->saved_data["eps"].toDouble(),
        kind(ctx->saved_data["zero_centered"].toBool()));
    return {grad.x, grad.weight, at::Tensor(), at::Tensor()};
  }

  static RmsNormKind kind(bool zero_centered) {
    return zero_centered ? RmsNormKind::zero_centered : RmsNormKind::scaled;
  }
};

struct KernelGatedRmsNorm : torch::autograd::Function<KernelGatedRmsNorm> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, const at::Tensor& z,
                                                const at::Tensor& weight, double eps) {
    ctx->save_for_backward({x, z, weight});
    ctx->saved_data["eps"] = eps;
    return {kernels::rms_norm_forward(x, weight, z, eps, RmsNormKind::gated)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const kernels::RmsNormGrad grad =
        kernels::rms_norm_backward(saved[0], saved[2], saved[1], grad_out[0],
                                   ctx->saved_data["eps"].toDouble(), RmsNormKind::gated);
    return {grad.x, grad.z, grad.weight, at::Tensor()};
  }
};

// The fused add and norm when nothing needs gradients and the kernel takes the tensors.
bool fuse_add(const at::Tensor& x, const at::Tensor& delta, const at::Tensor& weight) {
  return !at::GradMode::is_enabled() && kernels::can_rms_norm(x, weight, at::Tensor()) &&
         delta.sizes() == x.sizes() && delta.scalar_type() == x.scalar_type() &&
         delta.device() == x.device();
}

// x + delta and its norm of `kind`: one fused kernel where fuse_add allows, else the sum and
// `norm` (the unfused function of the same kind).
AddNorm add_norm(const at::Tensor& x, const at::Tensor& delta, const at::Tensor& weight, double eps,
                 RmsNormKind kind,
                 at::Tensor (*norm)(const at::Tensor&, const at::Tensor&, double)) {
  if (fuse_add(x, delta, weight)) {
    const kernels::AddRmsNorm out = kernels::add_rms_norm_forward(x, delta, weight, eps, kind);
    return {out.sum, out.y};
  }
  const at::Tensor sum = x + delta;
  return {sum, norm(sum, weight, eps)};
}

}  // namespace

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  // Batch-invariant mode on the CPU; on CUDA the mode runs verlpp's kernel below (a block per
  // row; model::require_batch_invariant_support checks that it takes the model's tensors).
  if (batch_invariant() && !x.is_cuda()) {
    return weight * InvariantNormalized::apply(x, eps).to(x.scalar_type());
  }
  if (kernels::can_rms_norm(x, weight, at::Tensor())) {
    return KernelRmsNorm::apply(x, weight, eps, /*zero_centered=*/false)[0];
  }
  return weight * normalized_fp32(x, eps).to(x.scalar_type());
}

at::Tensor zero_centered_rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  if (kernels::can_rms_norm(x, weight, at::Tensor())) {
    return KernelRmsNorm::apply(x, weight, eps, /*zero_centered=*/true)[0];
  }
  return (normalized_fp32(x, eps) * (weight.to(at::kFloat) + 1.0)).to(x.scalar_type());
}

at::Tensor gated_rms_norm(const at::Tensor& o, const at::Tensor& z, const at::Tensor& weight,
                          double eps) {
  if (kernels::can_rms_norm(o, weight, z)) return KernelGatedRmsNorm::apply(o, z, weight, eps)[0];
  const at::Tensor scaled = weight * normalized_fp32(o, eps).to(o.scalar_type());
  return (scaled.to(at::kFloat) * at::silu(z.to(at::kFloat))).to(o.scalar_type());
}

AddNorm add_rms_norm(const at::Tensor& x, const at::Tensor& delta, const at::Tensor& weight,
                     double eps) {
  return add_norm(x, delta, weight, eps, RmsNormKind::scaled, rms_norm);
}

AddNorm add_zero_centered_rms_norm(const at::Tensor& x, const at::Tensor& delta,
                                   const at::Tensor& weight, double eps) {
  return add_norm(x, delta, weight, eps, RmsNormKind::zero_centered, zero_centered_rms_norm);
}

}  // namespace verlpp::model
