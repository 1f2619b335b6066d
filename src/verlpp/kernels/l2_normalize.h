// LibTorch binding of the l2 norm kernels (l2_normalize_kernel.h): checks the tensors and launches
// on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take x: a CUDA [T, H, d] tensor of fp32,
// bf16 or fp16 whose last dimension is contiguous.
bool can_l2_normalize(const at::Tensor& x);

// l2norm(x) * scale over the last dimension, as fp32 [T, H, d] (contiguous), with ATen's roundings
// of x's dtype. Throws verlpp::Error when can_l2_normalize is false.
at::Tensor l2_normalize_fp32(const at::Tensor& x, double scale);

// d loss / d x [T, H, d] (x's dtype, contiguous) from dy [T, H, d] fp32.
at::Tensor l2_normalize_fp32_backward(const at::Tensor& x, const at::Tensor& dy, double scale);

}  // namespace verlpp::kernels
