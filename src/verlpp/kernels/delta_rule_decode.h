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

// The step's fp32 inputs (delta_rule_decode_kernel.h: DeltaRuleDecodeInputsParams) from the
// conv output conv [N, 2 key_heads dk + value_heads dv], a, b [N, value_heads] and the
// parameters A_log, dt_bias [value_heads]: contiguous CUDA tensors of one dtype (fp32, bf16,
// fp16), value_heads a multiple of key_heads. can_delta_rule_decode_inputs says whether the
// kernel takes them; delta_rule_decode_inputs throws verlpp::Error when it does not.
struct DeltaRuleDecodeInputs {
  at::Tensor q, k;     // [N, value_heads, dk] fp32 (q scaled by dk^-1/2)
  at::Tensor v;        // [N, value_heads, dv] fp32
  at::Tensor g, beta;  // [N, value_heads] fp32
};
bool can_delta_rule_decode_inputs(const at::Tensor& conv, const at::Tensor& a, const at::Tensor& b,
                                  const at::Tensor& A_log, const at::Tensor& dt_bias);
DeltaRuleDecodeInputs delta_rule_decode_inputs(const at::Tensor& conv, const at::Tensor& a,
                                               const at::Tensor& b, const at::Tensor& A_log,
                                               const at::Tensor& dt_bias, int64_t key_heads,
                                               int64_t dk, int64_t dv);

}  // namespace verlpp::kernels
