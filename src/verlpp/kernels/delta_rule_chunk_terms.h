// LibTorch binding of the chunk-terms kernel (delta_rule_chunk_terms_kernel.h): checks the tensors
// and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take chunks of q [N, H, C, dk] and v
// [N, H, C, dv] on CUDA: C <= 64, dk, dv <= 256.
bool can_delta_rule_chunk_terms(const at::Tensor& q, const at::Tensor& v);

// The terms of delta_rule_chunk_terms_kernel.h, fp32 and contiguous on q's device:
// egamma, tail [N, H, C], last_decay [N, H], qd, kd, w [N, H, C, dk], p [N, H, C, C], u [N, H, C,
// dv]; with `backward_terms` also decay, kk, qk, inverse [N, H, C, C] (else undefined).
struct DeltaRuleChunkTerms {
  at::Tensor egamma, tail, last_decay;
  at::Tensor qd, kd, p, u, w;
  at::Tensor decay, kk, qk, inverse;
};

// q, k [N, H, C, dk], v [N, H, C, dv], g, beta [N, H, C]: contiguous fp32 on one CUDA device.
// Throws verlpp::Error when can_delta_rule_chunk_terms is false or a tensor disagrees.
DeltaRuleChunkTerms delta_rule_chunk_terms(const at::Tensor& q, const at::Tensor& k,
                                           const at::Tensor& v, const at::Tensor& g,
                                           const at::Tensor& beta, bool backward_terms);

}  // namespace verlpp::kernels
