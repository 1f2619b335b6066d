#include "verlpp/kernels/rms_norm.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/rms_norm_kernel.h"
#endif

namespace verlpp::kernels {

namespace {

void check(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
           const at::Tensor& dy) {
  const bool dy_ok =
      !dy.defined() ||
      (dy.sizes() == x.sizes() && dy.scalar_type() == x.scalar_type() && dy.device() == x.device());
  if (!can_rms_norm(x, weight, z) || !dy_ok) {
    throw Error(fmt::format(
        "rms norm kernel: needs a build with verlpp's CUDA kernels, a CUDA x [..., H] (fp32, bf16 "
        "or fp16; last dimension contiguous; 1 <= H <= {}), weight [H]{}{} of x's dtype; got x "
        "[{}] ({}, {}), weight [{}]",
        kRmsNormMaxDim, z.defined() ? ", z like x" : "", dy.defined() ? ", dy like x" : "",
        fmt::join(x.sizes(), ", "), c10::toString(x.scalar_type()), x.device().str(),
        fmt::join(weight.sizes(), ", ")));
  }
}

#ifdef VERLPP_CUDA_KERNELS
// x as rows [R, H] with unit stride along H (a view when its leading dimensions merge).
at::Tensor rows_of(const at::Tensor& x) {
  const at::Tensor rows = x.reshape({-1, x.size(-1)});
  return rows.size(1) <= 1 || rows.stride(1) == 1 ? rows : rows.contiguous();
}

RmsNormParams params(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                     double eps) {
  RmsNormParams p;
  p.x = x.data_ptr();
  p.x_stride = x.stride(0);
  p.weight = weight.data_ptr();
  if (z.defined()) {
    p.z = z.data_ptr();
    p.z_stride = z.stride(0);
  }
  p.rows = x.size(0);
  p.dim = static_cast<int>(x.size(1));
  p.eps = static_cast<float>(eps);
  p.dtype = element_type(x.scalar_type());
  return p;
}
#endif

}  // namespace

bool can_rms_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = x.scalar_type();
  const bool z_ok =
      !z.defined() || (z.sizes() == x.sizes() && z.scalar_type() == t && z.device() == x.device());
  return x.is_cuda() && x.dim() >= 1 && x.size(-1) >= 1 && x.size(-1) <= kRmsNormMaxDim &&
         (t == at::kFloat || t == at::kBFloat16 || t == at::kHalf) && weight.dim() == 1 &&
         weight.size(0) == x.size(-1) && weight.scalar_type() == t &&
         weight.device() == x.device() && weight.is_contiguous() && z_ok;
#else
  (void)x;
  (void)weight;
  (void)z;
  return false;
#endif
}

at::Tensor rms_norm_forward(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                            double eps) {
  check(x, weight, z, at::Tensor());
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
#ifdef VERLPP_CUDA_KERNELS
  const at::Tensor xr = rows_of(x);
  const at::Tensor zr = z.defined() ? rows_of(z) : at::Tensor();
  RmsNormParams p = params(xr, weight, zr, eps);
  p.y = y.data_ptr();
  check_launch(launch_rms_norm_forward(p, current_stream(x.device())), "rms norm");
#else
  (void)eps;
#endif
  return y;
}

RmsNormGrad rms_norm_backward(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                              const at::Tensor& dy, double eps) {
  check(x, weight, z, dy);
  const auto contiguous = x.options().memory_format(at::MemoryFormat::Contiguous);
  RmsNormGrad grad;
  grad.x = at::empty(x.sizes(), contiguous);
  if (z.defined()) grad.z = at::empty(x.sizes(), contiguous);
#ifdef VERLPP_CUDA_KERNELS
  const at::Tensor xr = rows_of(x);
  const at::Tensor zr = z.defined() ? rows_of(z) : at::Tensor();
  const at::Tensor dyr = dy.contiguous();
  const at::Tensor partials =
      at::empty({rms_norm_backward_blocks(xr.size(0)), x.size(-1)}, x.options().dtype(at::kFloat));
  RmsNormParams p = params(xr, weight, zr, eps);
  p.dy = dyr.data_ptr();
  p.dx = grad.x.data_ptr();
  if (z.defined()) p.dz = grad.z.data_ptr();
  p.dweight_partials = partials.data_ptr<float>();
  check_launch(launch_rms_norm_backward(p, current_stream(x.device())), "rms norm");
  grad.weight = partials.sum(0).to(weight.scalar_type());
#else
  (void)eps;
#endif
  return grad;
}

}  // namespace verlpp::kernels
