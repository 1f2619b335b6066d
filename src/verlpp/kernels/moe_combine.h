// LibTorch binding of the MoE combine kernel (moe_combine_kernel.h: the formula and its order):
// checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take expert_out [rows, H], weights
// [T, k] and row_of_pair int64 [T k]: CUDA tensors on one device, expert_out and weights of one
// dtype (fp32, bf16 or fp16).
bool can_moe_combine(const at::Tensor& expert_out, const at::Tensor& weights,
                     const at::Tensor& row_of_pair);

// out [T, H] (contiguous, expert_out's dtype): out[t] = sum_j weights[t, j]
// expert_out[row_of_pair[t k + j]], in fp32 in slot order, rounded once. Rows outside [0, rows) are
// the caller's error (not checked: the check would wait for the device; negative rows add nothing).
// Forward only. Throws verlpp::Error when can_moe_combine is false.
at::Tensor moe_combine(const at::Tensor& expert_out, const at::Tensor& weights,
                       const at::Tensor& row_of_pair);

}  // namespace verlpp::kernels
