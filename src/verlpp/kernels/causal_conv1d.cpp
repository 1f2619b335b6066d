#include "verlpp/kernels/causal_conv1d.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/causal_conv1d_kernel.h"
#include "verlpp/kernels/launch.h"
#endif

namespace verlpp::kernels {

namespace {

void check(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& offsets,
           const at::Tensor& dout) {
  if (!can_causal_conv1d(x, weight) || offsets.scalar_type() != at::kLong ||
      !offsets.is_contiguous() || offsets.device() != x.device() ||
      offsets.sizes() != at::IntArrayRef({x.size(0)}) ||
      (dout.defined() && (dout.sizes() != x.sizes() || dout.scalar_type() != x.scalar_type() ||
                          !dout.is_contiguous() || dout.device() != x.device()))) {
    throw Error(fmt::format(
        "causal conv1d kernel: needs a build with verlpp's CUDA kernels and contiguous CUDA x "
        "[tokens, channels], weight [channels, 1, taps <= 4] of one dtype (fp32, bf16, fp16), "
        "int64 offsets [tokens]{}; got x [{}] ({}, {}), weight [{}] ({}), offsets [{}] ({})",
        dout.defined() ? " and dout like x" : "", fmt::join(x.sizes(), ", "),
        c10::toString(x.scalar_type()), x.device().str(), fmt::join(weight.sizes(), ", "),
        c10::toString(weight.scalar_type()), fmt::join(offsets.sizes(), ", "),
        c10::toString(offsets.scalar_type())));
  }
}

#ifdef VERLPP_CUDA_KERNELS
bool supported_dtype(at::ScalarType t) {
  return t == at::kFloat || t == at::kBFloat16 || t == at::kHalf;
}

CausalConv1dParams params(const at::Tensor& x, const at::Tensor& weight,
                          const at::Tensor& offsets) {
  CausalConv1dParams p;
  p.x = x.data_ptr();
  p.weight = weight.data_ptr();
  p.offsets = offsets.data_ptr<int64_t>();
  p.tokens = x.size(0);
  p.channels = static_cast<int>(x.size(1));
  p.taps = static_cast<int>(weight.size(2));
  p.dtype = element_type(x.scalar_type());
  return p;
}

#endif

}  // namespace

bool can_causal_conv1d(const at::Tensor& x, const at::Tensor& weight) {
#ifdef VERLPP_CUDA_KERNELS
  return x.is_cuda() && x.dim() == 2 && x.is_contiguous() && supported_dtype(x.scalar_type()) &&
         weight.dim() == 3 && weight.size(0) == x.size(1) && weight.size(1) == 1 &&
         weight.scalar_type() == x.scalar_type() && weight.is_contiguous() &&
         weight.device() == x.device() && causal_conv1d_supported(static_cast<int>(weight.size(2)));
#else
  (void)x;
  (void)weight;
  return false;
#endif
}

bool can_causal_conv1d_update(const at::Tensor& x, const at::Tensor& weight,
                              const at::Tensor& windows) {
  return can_causal_conv1d(x, weight) && windows.dim() == 3 && windows.size(1) == x.size(1) &&
         windows.size(2) == weight.size(2) - 1 && windows.scalar_type() == x.scalar_type() &&
         windows.is_contiguous() && windows.device() == x.device();
}

at::Tensor causal_conv1d_update(const at::Tensor& x, const at::Tensor& weight, at::Tensor& windows,
                                const at::Tensor& slots) {
  if (!can_causal_conv1d_update(x, weight, windows) || slots.scalar_type() != at::kLong ||
      !slots.is_contiguous() || slots.device() != x.device() ||
      slots.sizes() != at::IntArrayRef({x.size(0)})) {
    throw Error(fmt::format(
        "causal conv1d update kernel: needs a build with verlpp's CUDA kernels, contiguous CUDA x "
        "[N, channels], weight [channels, 1, taps <= 4], windows [slots, channels, taps - 1] of "
        "one dtype (fp32, bf16, fp16) and int64 slots [N]; got x [{}] ({}), weight [{}], windows "
        "[{}] ({}), slots [{}]",
        fmt::join(x.sizes(), ", "), c10::toString(x.scalar_type()), fmt::join(weight.sizes(), ", "),
        fmt::join(windows.sizes(), ", "), c10::toString(windows.scalar_type()),
        fmt::join(slots.sizes(), ", ")));
  }
  at::Tensor out = at::empty_like(x);
#ifdef VERLPP_CUDA_KERNELS
  CausalConv1dUpdateParams p;
  p.x = x.data_ptr();
  p.weight = weight.data_ptr();
  p.windows = windows.data_ptr();
  p.slots = slots.data_ptr<int64_t>();
  p.out = out.data_ptr();
  p.num_seqs = static_cast<int>(x.size(0));
  p.channels = static_cast<int>(x.size(1));
  p.taps = static_cast<int>(weight.size(2));
  p.dtype = element_type(x.scalar_type());
  check_launch(launch_causal_conv1d_update(p, current_stream(x.device())), "causal conv1d");
#endif
  return out;
}

at::Tensor causal_conv1d_silu(const at::Tensor& x, const at::Tensor& weight,
                              const at::Tensor& offsets) {
  check(x, weight, offsets, at::Tensor());
  at::Tensor out = at::empty_like(x);
#ifdef VERLPP_CUDA_KERNELS
  CausalConv1dParams p = params(x, weight, offsets);
  p.out = out.data_ptr();
  check_launch(launch_causal_conv1d_forward(p, current_stream(x.device())), "causal conv1d");
#endif
  return out;
}

CausalConv1dGrad causal_conv1d_silu_backward(const at::Tensor& x, const at::Tensor& weight,
                                             const at::Tensor& offsets, const at::Tensor& dout) {
  check(x, weight, offsets, dout);
  CausalConv1dGrad grad{at::empty_like(x), at::Tensor()};
#ifdef VERLPP_CUDA_KERNELS
  const int64_t blocks = (x.size(0) + kCausalConvTokensPerBlock - 1) / kCausalConvTokensPerBlock;
  at::Tensor partial =
      at::empty({blocks, weight.size(0), weight.size(2)}, x.options().dtype(at::kFloat));
  CausalConv1dParams p = params(x, weight, offsets);
  p.dout = dout.data_ptr();
  p.dx = grad.x.data_ptr();
  p.dw_partial = partial.data_ptr<float>();
  check_launch(launch_causal_conv1d_backward(p, current_stream(x.device())), "causal conv1d");
  grad.weight = partial.sum(0).unsqueeze(1).to(weight.scalar_type());
#else
  grad.weight = at::zeros_like(weight);
#endif
  return grad;
}

}  // namespace verlpp::kernels
