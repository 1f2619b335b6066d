#include "verlpp/model/layers/rms_norm.h"

#include <ATen/ATen.h>

#include "verlpp/core/torch_compat.h"

namespace verlpp::model {

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
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

}  // namespace

at::Tensor zero_centered_rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  return (normalized_fp32(x, eps) * (weight.to(at::kFloat) + 1.0)).to(x.scalar_type());
}

at::Tensor gated_rms_norm(const at::Tensor& o, const at::Tensor& z, const at::Tensor& weight,
                          double eps) {
  const at::Tensor scaled = weight * normalized_fp32(o, eps).to(o.scalar_type());
  return (scaled.to(at::kFloat) * at::silu(z.to(at::kFloat))).to(o.scalar_type());
}

}  // namespace verlpp::model
