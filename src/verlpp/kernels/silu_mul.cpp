#include "verlpp/kernels/silu_mul.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/silu_mul_kernel.h"
#endif

namespace verlpp::kernels {

bool can_silu_mul(const at::Tensor& gate, const at::Tensor& up) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = gate.scalar_type();
  return gate.is_cuda() && (t == at::kFloat || t == at::kBFloat16 || t == at::kHalf) &&
         up.sizes() == gate.sizes() && up.scalar_type() == t && up.device() == gate.device();
#else
  (void)gate;
  (void)up;
  return false;
#endif
}

at::Tensor silu_mul(const at::Tensor& gate, const at::Tensor& up) {
  if (!can_silu_mul(gate, up)) {
    throw Error(fmt::format(
        "silu_mul kernel: needs a build with verlpp's CUDA kernels and CUDA gate and up of one "
        "shape and dtype (fp32, bf16 or fp16); got gate [{}] ({}, {}), up [{}] ({}, {})",
        fmt::join(gate.sizes(), ", "), c10::toString(gate.scalar_type()), gate.device().str(),
        fmt::join(up.sizes(), ", "), c10::toString(up.scalar_type()), up.device().str()));
  }
  const at::Tensor g = gate.contiguous();
  const at::Tensor u = up.contiguous();
  at::Tensor y = at::empty_like(g);
#ifdef VERLPP_CUDA_KERNELS
  SiluMulParams p;
  p.gate = g.data_ptr();
  p.up = u.data_ptr();
  p.y = y.data_ptr();
  p.n = g.numel();
  p.dtype = element_type(g.scalar_type());
  check_launch(launch_silu_mul(p, current_stream(g.device())), "silu_mul");
#endif
  return y;
}

}  // namespace verlpp::kernels
