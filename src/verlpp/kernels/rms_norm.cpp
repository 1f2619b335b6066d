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

bool like(const at::Tensor& t, const at::Tensor& x) {
  return t.sizes() == x.sizes() && t.scalar_type() == x.scalar_type() && t.device() == x.device();
}

// `other`: dy or the residual (named `other_name`), undefined when the call has none.
void check(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
           const at::Tensor& other, const char* other_name, RmsNormKind kind) {
  if (z.defined() != (kind == RmsNormKind::gated)) {
    throw Error(fmt::format("rms norm kernel: the gate z must be given {} the gated norm",
                            z.defined() ? "only to" : "to"));
  }
  if (!can_rms_norm(x, weight, z) || (other.defined() && !like(other, x))) {
    throw Error(fmt::format(
        "rms norm kernel: needs a build with verlpp's CUDA kernels, a CUDA x [..., H] (fp32, bf16 "
        "or fp16; last dimension contiguous; 1 <= H <= {}), weight [H]{}{}{}{} of x's dtype; got x "
        "[{}] ({}, {}), weight [{}]",
        kRmsNormMaxDim, z.defined() ? ", z like x" : "", other.defined() ? ", " : "",
        other.defined() ? other_name : "", other.defined() ? " like x" : "",
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

RmsNormParams params(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z, double eps,
                     RmsNormKind kind) {
  RmsNormParams p;
  p.kind = kind;
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
                            double eps, RmsNormKind kind) {
  check(x, weight, z, at::Tensor(), "", kind);
  at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
#ifdef VERLPP_CUDA_KERNELS
  const at::Tensor xr = rows_of(x);
  const at::Tensor zr = z.defined() ? rows_of(z) : at::Tensor();
  RmsNormParams p = params(xr, weight, zr, eps, kind);
  p.y = y.data_ptr();
  check_launch(launch_rms_norm_forward(p, current_stream(x.device())), "rms norm");
#else
  (void)eps;
#endif
  return y;
}

AddRmsNorm add_rms_norm_forward(const at::Tensor& x, const at::Tensor& residual,
                                const at::Tensor& weight, double eps, RmsNormKind kind) {
  if (kind == RmsNormKind::gated)
    throw Error("rms norm kernel: no residual add before a gated norm");
  check(x, weight, at::Tensor(), residual, "residual", kind);
  const auto contiguous = x.options().memory_format(at::MemoryFormat::Contiguous);
  AddRmsNorm out{at::empty(x.sizes(), contiguous), at::empty(x.sizes(), contiguous)};
#ifdef VERLPP_CUDA_KERNELS
  const at::Tensor xr = rows_of(x);
  const at::Tensor rr = rows_of(residual);
  RmsNormParams p = params(xr, weight, at::Tensor(), eps, kind);
  p.residual = rr.data_ptr();
  p.residual_stride = rr.stride(0);
  p.sum = out.sum.data_ptr();
  p.y = out.y.data_ptr();
  check_launch(launch_rms_norm_forward(p, current_stream(x.device())), "rms norm");
#else
  (void)eps;
#endif
  return out;
}

RmsNormGrad rms_norm_backward(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                              const at::Tensor& dy, double eps, RmsNormKind kind) {
  if (!dy.defined()) throw Error("rms norm kernel: the backward needs dy");
  check(x, weight, z, dy, "dy", kind);
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
  RmsNormParams p = params(xr, weight, zr, eps, kind);
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
