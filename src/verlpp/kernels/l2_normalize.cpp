#include "verlpp/kernels/l2_normalize.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/l2_normalize_kernel.h"
#include "verlpp/kernels/launch.h"
#endif

namespace verlpp::kernels {

namespace {

void check(const at::Tensor& x, const at::Tensor& dy) {
  if (!can_l2_normalize(x) ||
      (dy.defined() && (dy.sizes() != x.sizes() || dy.scalar_type() != at::kFloat ||
                        !dy.is_contiguous() || dy.device() != x.device()))) {
    throw Error(fmt::format(
        "l2 normalize kernel: needs a build with verlpp's CUDA kernels and a CUDA x [T, H, d] "
        "(fp32, bf16 or fp16; last dimension contiguous, d <= 65536){}; got x [{}] ({}, {})",
        dy.defined() ? " and a contiguous fp32 dy like x" : "", fmt::join(x.sizes(), ", "),
        c10::toString(x.scalar_type()), x.device().str()));
  }
}

#ifdef VERLPP_CUDA_KERNELS
L2NormalizeParams params(const at::Tensor& x, double scale) {
  L2NormalizeParams p;
  p.x = x.data_ptr();
  p.tokens = x.size(0);
  p.heads = static_cast<int>(x.size(1));
  p.dim = static_cast<int>(x.size(2));
  p.stride_t = x.stride(0);
  p.stride_h = x.stride(1);
  p.scale = static_cast<float>(scale);
  p.dtype = element_type(x.scalar_type());
  return p;
}

#endif

}  // namespace

bool can_l2_normalize(const at::Tensor& x) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = x.scalar_type();
  return x.is_cuda() && x.dim() == 3 && (x.size(2) <= 1 || x.stride(2) == 1) &&
         x.size(2) <= 65536 && x.size(1) <= 65536 &&
         (t == at::kFloat || t == at::kBFloat16 || t == at::kHalf);
#else
  (void)x;
  return false;
#endif
}

at::Tensor l2_normalize_fp32(const at::Tensor& x, double scale) {
  check(x, at::Tensor());
  at::Tensor y = at::empty(x.sizes(), x.options().dtype(at::kFloat));
#ifdef VERLPP_CUDA_KERNELS
  L2NormalizeParams p = params(x, scale);
  p.y = y.data_ptr<float>();
  check_launch(launch_l2_normalize_forward(p, current_stream(x.device())), "l2 normalize");
#else
  (void)scale;
#endif
  return y;
}

at::Tensor l2_normalize_fp32_backward(const at::Tensor& x, const at::Tensor& dy, double scale) {
  check(x, dy);
  at::Tensor dx = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
#ifdef VERLPP_CUDA_KERNELS
  L2NormalizeParams p = params(x, scale);
  p.dy = dy.data_ptr<float>();
  p.dx = dx.data_ptr();
  check_launch(launch_l2_normalize_backward(p, current_stream(x.device())), "l2 normalize");
#else
  (void)scale;
#endif
  return dx;
}

}  // namespace verlpp::kernels
