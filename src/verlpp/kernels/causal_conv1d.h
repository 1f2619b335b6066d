// LibTorch binding of the short causal convolution + SiLU of Gated DeltaNet
// (causal_conv1d_kernel.h): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take x [tokens, channels] and weight
// [channels, 1, taps]: contiguous CUDA tensors of one dtype (fp32, bf16 or fp16), taps <= 4.
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

// The decode step: x [N, channels] one new column per sequence, windows [slots, channels, taps - 1]
// (x's dtype) the columns before it at rows slots ([N] int64, distinct), moved on by one column in
// place. Returns silu(conv) [N, channels]. can_causal_conv1d_update says whether the kernel takes
// them; causal_conv1d_update throws verlpp::Error when it does not.
bool can_causal_conv1d_update(const at::Tensor& x, const at::Tensor& weight,
                              const at::Tensor& windows);
at::Tensor causal_conv1d_update(const at::Tensor& x, const at::Tensor& weight, at::Tensor& windows,
                                const at::Tensor& slots);

}  // namespace verlpp::kernels
