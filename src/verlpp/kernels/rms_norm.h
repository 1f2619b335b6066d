// LibTorch binding of verlpp's RMSNorm kernels (rms_norm_kernel.h: the formulas and their
// roundings): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "verlpp/kernels/rms_norm_kind.h"

namespace verlpp::kernels {

// The largest H the kernels take (the backward keeps four fp32 dw sums of H in shared memory).
constexpr int64_t kRmsNormMaxDim = 8192;

// True when this build compiled the CUDA kernels and they take x [..., H] (CUDA, bf16/fp16/fp32,
// last dimension contiguous, 1 <= H <= kRmsNormMaxDim), weight [H] and, when defined, z shaped like
// x, all of x's dtype and device.
bool can_rms_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z);

// The `kind` RMSNorm of x over its last dimension: y shaped like x (contiguous, x's dtype); z is
// the gate of the gated norm and undefined for the others. Throws verlpp::Error when can_rms_norm
// is false or z is (un)defined against the kind.
at::Tensor rms_norm_forward(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                            double eps, RmsNormKind kind);

// s = x + residual (ATen's add, the same bits) and the scaled or zero-centred norm of s, in one
// kernel: residual shaped like x; both results contiguous, x's dtype. Forward only. Throws
// verlpp::Error when can_rms_norm(x, weight) is false, residual does not match x or kind is
// gated.
struct AddRmsNorm {
  at::Tensor sum, y;
};
AddRmsNorm add_rms_norm_forward(const at::Tensor& x, const at::Tensor& residual,
                                const at::Tensor& weight, double eps, RmsNormKind kind);

struct RmsNormGrad {
  at::Tensor x, weight, z;  // like x, [H], like x (gated; undefined for the others)
};

// The gradients from dy (shaped like x, x's dtype); z.defined() must match the kind (gated).
// Throws verlpp::Error when can_rms_norm is false or dy does not match.
RmsNormGrad rms_norm_backward(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& z,
                              const at::Tensor& dy, double eps, RmsNormKind kind);

}  // namespace verlpp::kernels
