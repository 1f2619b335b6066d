// LibTorch binding of the MoE router kernel (moe_route_kernel.h: the formula, and which of it is
// bit-identical to ATen): checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take router logits [T, E]: a CUDA
// tensor of fp32, bf16 or fp16, E <= kMoeRouteMaxExperts (1,024) and 1 <= top_k <= min(E, 32).
bool can_moe_route(const at::Tensor& logits, int64_t top_k);

struct MoeRoute {
  at::Tensor weights;  // [T, k], logits' dtype
  at::Tensor experts;  // [T, k] int64
};

// The top_k experts of each token and their weights (renormalised to sum 1 when normalize).
// Forward only (no autograd). Throws verlpp::Error when can_moe_route is false.
MoeRoute moe_route(const at::Tensor& logits, int64_t top_k, bool normalize);

}  // namespace verlpp::kernels
