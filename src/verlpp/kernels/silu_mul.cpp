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
  // Rows read in place: the two halves of a fused gate/up product.
  const bool rows = gate.dim() == 2 && gate.stride(1) == 1 && up.strides() == gate.strides();
  const at::Tensor g = rows ? gate : gate.contiguous();
  const at::Tensor u = rows ? up : up.contiguous();
  at::Tensor y = at::empty(g.sizes(), g.options().memory_format(at::MemoryFormat::Contiguous));
#ifdef VERLPP_CUDA_KERNELS
  SiluMulParams p;
  p.gate = g.data_ptr();
  p.up = u.data_ptr();
  p.y = y.data_ptr();
  p.n = g.numel();
  if (rows) {
    p.cols = g.size(1);
    p.in_stride = g.stride(0);
  }
  p.dtype = element_type(g.scalar_type());
  check_launch(launch_silu_mul(p, current_stream(g.device())), "silu_mul");
#endif
  return y;
}

}  // namespace verlpp::kernels
