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
