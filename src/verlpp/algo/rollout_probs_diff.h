// verl's rollout-vs-trainer probability check (verl/utils/debug/metrics.py,
// calculate_debug_metrics), logged every step the rollout returns its log-probs: over the response
// tokens, p_rollout = exp(rollout_log_probs) and p_actor = exp(old_log_probs), the probabilities of
// the sampled tokens under the rollout engine and under the trainer's recompute.
//   training/rollout_probs_diff_valid        1, or 0 when no response token exists (then every
//                                            other value is NaN)
//   training/rollout_probs_diff_{max,mean,std}  of |p_rollout - p_actor| (std unbiased, NaN for
//                                            one token, as torch.std)
//   training/rollout_actor_probs_pearson_corr  Pearson's r of p_actor and p_rollout
//                                            (torch.corrcoef; NaN when either is constant)
// In float64 on the CPU.
#pragma once

#include <ATen/core/Tensor.h>

#include "verlpp/algo/metrics.h"

namespace verlpp::algo {

// rollout_log_probs, old_log_probs: float [B, R]; response_mask: [B, R], nonzero on response
// tokens. Throws verlpp::Error when the shapes differ.
Metrics rollout_probs_diff_metrics(const at::Tensor& rollout_log_probs,
                                   const at::Tensor& old_log_probs,
                                   const at::Tensor& response_mask);

}  // namespace verlpp::algo
