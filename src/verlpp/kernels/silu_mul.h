// LibTorch binding of the silu·mul kernel (silu_mul_kernel.h: the formula, bit-identical to
// at::silu(gate) * up): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take gate and up: CUDA tensors of one
// shape, dtype (fp32, bf16 or fp16) and device.
bool can_silu_mul(const at::Tensor& gate, const at::Tensor& up);

// silu(gate) * up, contiguous, shaped like gate. 2-D gate and up with contiguous rows and equal
// strides are read in place (the halves gate_up.narrow(-1, 0, I) and narrow(-1, I, I) of a
// [rows, 2 I] product); anything else is made contiguous first. Forward only (no autograd).
// Throws verlpp::Error when can_silu_mul is false.
at::Tensor silu_mul(const at::Tensor& gate, const at::Tensor& up);

}  // namespace verlpp::kernels
