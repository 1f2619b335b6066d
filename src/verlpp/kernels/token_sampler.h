// LibTorch binding of the one-kernel sampler of a decode step (token_sampler_kernel.h): checks the
// tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take these tensors: CUDA logits
// [rows, vocab] (fp32, bf16 or fp16; last dimension contiguous; 1 <= vocab <= 8,388,608) and fp64
// uniforms [rows] on the same device.
bool can_sample_tokens(const at::Tensor& logits, const at::Tensor& uniforms);

struct KernelSample {
  at::Tensor tokens;    // [rows] int64
  at::Tensor logprobs;  // [rows] fp32, log_softmax(logits / temperature)[token]
};

// Inverse-CDF draws from softmax(logits / temperature) with the row's uniform number
// (token_sampler_kernel.h has the formula and where its roundings differ from ATen's).
// temperature > 0. Throws verlpp::Error when can_sample_tokens is false.
KernelSample sample_tokens(const at::Tensor& logits, double temperature,
                           const at::Tensor& uniforms);

}  // namespace verlpp::kernels
