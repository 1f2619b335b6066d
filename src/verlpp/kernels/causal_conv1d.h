// LibTorch binding of the short causal convolution + SiLU of Gated DeltaNet
// (causal_conv1d_kernel.h): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take x [tokens, channels] and weight
// [channels, 1, taps]: contiguous CUDA tensors of one dtype (fp32, bf16 or fp16), taps <= 8.
bool can_causal_conv1d(const at::Tensor& x, const at::Tensor& weight);

// out [tokens, channels] (x's dtype) = silu(causal depthwise conv of x), each token at position
// offsets[t] ([tokens] int64 on x's device) of its packed sequence. Throws verlpp::Error when
// can_causal_conv1d is false or a tensor disagrees.
at::Tensor causal_conv1d_silu(const at::Tensor& x, const at::Tensor& weight,
                              const at::Tensor& offsets);

struct CausalConv1dGrad {
  at::Tensor x;       // [tokens, channels], x's dtype
  at::Tensor weight;  // [channels, 1, taps], weight's dtype (summed in fp32)
};

// The gradients of causal_conv1d_silu for `dout` [tokens, channels].
CausalConv1dGrad causal_conv1d_silu_backward(const at::Tensor& x, const at::Tensor& weight,
                                             const at::Tensor& offsets, const at::Tensor& dout);

}  // namespace verlpp::kernels
