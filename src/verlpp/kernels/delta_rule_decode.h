// LibTorch binding of the fused gated delta rule decode step (delta_rule_decode_kernel.h): checks
// the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernel and it takes `state`: a contiguous fp32 CUDA
// tensor [slots, heads, dk, dv] with dk <= 256 and dv <= 1024.
bool can_delta_rule_decode(const at::Tensor& state);

// One decode step for N sequences: q, k [N, heads, dk] (l2-normalised; q scaled by dk^-1/2),
// v [N, heads, dv], g (log decay) and beta [N, heads], all fp32 on the state's device; slots
// [N] int64, distinct rows of `state`, which is updated in place there. Returns o [N, heads, dv]
// fp32. Throws verlpp::Error when can_delta_rule_decode is false or a shape disagrees.
at::Tensor delta_rule_decode(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& g, const at::Tensor& beta, at::Tensor& state,
                             const at::Tensor& slots);

}  // namespace verlpp::kernels
