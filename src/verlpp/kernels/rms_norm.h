// LibTorch binding of Qwen3.5's RMSNorm kernels (rms_norm_kernel.h: the formulas and their
// roundings): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::kernels {

// The largest H the kernels take (the backward keeps four fp32 dw sums of H in shared memory).
constexpr int64_t kRmsNormMaxDim = 8192;

// True when this build compiled the CUDA kernels and they take x [..., H] (CUDA, bf16/fp16/fp32,
// last dimension contiguous, 1 <= H <= kRmsNormMaxDim), weight [H] and, when defined, z shaped like
// x, all of x's dtype and device.
bool can_rms_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z);

// Zero-centred (z undefined) or gated (z defined) RMSNorm of x over its last dimension: y shaped
// like x (contiguous, x's dtype). Throws verlpp::Error when can_rms_norm is false.
at::Tensor rms_norm_forward(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                            double eps);

struct RmsNormGrad {
  at::Tensor x, weight, z;  // like x, [H], like x (undefined for the zero-centred norm)
};

// The gradients from dy (shaped like x, x's dtype). Throws verlpp::Error when can_rms_norm is
// false or dy does not match.
RmsNormGrad rms_norm_backward(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                              const at::Tensor& dy, double eps);

}  // namespace verlpp::kernels
