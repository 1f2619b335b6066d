// Rollout correction: importance-sampling weights and rejection sampling for the gap between the
// rollout engine's policy and the trainer's (verl: verl/trainer/ppo/rollout_corr_helper.py,
// config algorithm.rollout_correction; verl.md §3.8; "When Speed Kills Stability",
// https://richardli.xyz/rl-collapse).
//
// Shapes: old_log_prob (the training policy: the recomputed old_log_probs, or in bypass mode the
// current log_prob), rollout_log_prob and response_mask are [batch, response_length]; the mask is
// bool or 0/1. With r = old_log_prob - rollout_log_prob (log pi_train / pi_rollout) and
// SAFETY = 20:
//
//   IS weights (rollout_is)   token:    w = exp(clamp(r, +-SAFETY)) * m
//                             sequence: w = exp(clamp(sum_t r*m, +-SAFETY)) broadcast, * m
//                             then w = min(w, rollout_is_threshold) and, with
//                             rollout_is_batch_normalize, w /= their mean (token: masked mean;
//                             sequence: mean of the per-row masked means over rows with tokens)
//                             when that mean is > 1e-8.
//   rejection (rollout_rs)    comma-separated options, all must pass (duplicates dropped):
//                             k1 = -clamp(r), k2 = 0.5*clamp(r)^2, k3 = exp(clamp(r)) - 1 -
//                             clamp(r) token_k{1,2,3} per token; seq_sum_k{1,2,3} /
//                             seq_mean_k{1,2,3} the masked sum / mean per row; seq_max_k{2,3} the
//                             masked max (0 for an empty row). k1 keeps log(lower) <= stat <=
//                             log(upper), k2/k3 keep stat <= upper; a rejected token (or row)
//                             leaves response_mask.
//   rollout_rs_threshold      one entry shared by all options or one per option, comma-separated;
//                             k1: "lower_upper" or "upper" (lower = 1/upper); k2/k3: "upper".
//
// Metrics (named "rollout_corr/<key>", verl's keys): rollout_is_{mean,max,min,std,
// eff_sample_size,ratio_fraction_high,ratio_fraction_low,seq_mean,seq_std,seq_max,seq_min,
// seq_max_deviation,seq_fraction_high,seq_fraction_low,batch_norm_factor}, per rejection option
// rollout_rs_<option>_{mean,max,min,std,fraction_high,fraction_low,seq_mean,seq_std,seq_max,
// seq_min,seq_max_deviation,seq_fraction_high,seq_fraction_low (k1 only),masked_fraction,
// seq_masked_fraction}, rollout_rs_{masked_fraction,seq_masked_fraction}, and the off-policy
// diagnostics training_ppl, training_log_ppl, kl, k3_kl, rollout_ppl, rollout_log_ppl,
// log_ppl_diff, log_ppl_abs_diff, log_ppl_diff_max, log_ppl_diff_min, ppl_ratio, chi2_token,
// chi2_seq (formulas in rollout_correction.cpp beside each).
#pragma once

#include <ATen/core/Tensor.h>

#include "verlpp/algo/metrics.h"
#include "verlpp/algo/rollout_correction_config.h"

namespace verlpp::algo {

struct RolloutCorrectionResult {
  at::Tensor rollout_is_weights;  // [batch, response_length], detached; undefined without IS
  at::Tensor response_mask;       // the input mask with rejected tokens zeroed, its dtype
  Metrics metrics;                // "rollout_corr/..." keys
};

// IS weights, rejection and metrics, computed in old_log_prob's floating dtype. Throws
// verlpp::Error for mismatched shapes, a mask without a valid token, or a bad setting.
RolloutCorrectionResult compute_rollout_correction(const at::Tensor& old_log_prob,
                                                   const at::Tensor& rollout_log_prob,
                                                   const at::Tensor& response_mask,
                                                   const RolloutCorrectionConfig& config);

// The off-policy diagnostics alone (verl's compute_offpolicy_metrics), without the prefix.
Metrics offpolicy_metrics(const at::Tensor& old_log_prob, const at::Tensor& rollout_log_prob,
                          const at::Tensor& response_mask);

}  // namespace verlpp::algo
