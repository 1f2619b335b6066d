// The optimal token baseline (OTB) advantage estimators (verl: verl/trainer/ppo/core_algos.py
// compute_optimal_token_baseline_advantage and compute_multi_turn_optimal_token_baseline_advantage,
// registered as optimal_token_baseline and tir_optimal_token_baseline; verl.md §3.1): a baseline
// per group and token position, weighted by each path's accumulated variance proxy.
//
// Shapes: token_level_rewards, response_mask, old_log_probs, sum_pi_squared and
// rollout_is_weights are [batch, response_length] (the weights optional); index is int64 [batch]
// (groups.h). With m the mask:
//   G_t = sum_{u >= t} r_u*m_u                      (returns, reward-to-go)
//   w_t = 1 - 2*exp(old_log_probs_t) + sum_pi_squared_t, times rollout_is_weights_t^2 when given
//         (||score||^2 of the softmax at the sampled token; sum_pi_squared = sum_v pi_v^2)
//   W_t = sum_{u <= t} w_u*m_u                      (cumulative path-variance proxy)
//   B_t = sum_i G_t*W_t*m_t / (sum_i W_t*m_t + epsilon) over the group's responses i
//   advantages = (G - B)*m, returns = G.
// A group of one response gets B = 0. handle_zero_tail: when a group's longest response (length
// = mask sum) is the only one of that length, its baseline from the second-longest length on is
// 0. The multi-turn variant packs each response's unmasked tokens to the left first (a multi-turn
// response's masked tool outputs drop out of the positions), leaves empty responses out of the
// groups, and zeroes the tail by default. Results have token_level_rewards' dtype. Throws
// verlpp::Error naming the estimator for a missing or mis-shaped input.
#pragma once

#include <ATen/core/Tensor.h>

#include "verlpp/algo/advantage.h"

namespace verlpp::algo {

struct OptimalTokenBaselineInputs {
  at::Tensor token_level_rewards;  // [batch, response_length]
  at::Tensor response_mask;        // [batch, response_length]
  at::Tensor index;                // int64 [batch]
  at::Tensor old_log_probs;        // [batch, response_length]
  at::Tensor sum_pi_squared;       // [batch, response_length]
  at::Tensor rollout_is_weights;   // [batch, response_length], optional
};

// optimal_token_baseline (verl's default: handle_zero_tail false).
AdvantageResult compute_optimal_token_baseline_advantage(const OptimalTokenBaselineInputs& in,
                                                         bool handle_zero_tail = false,
                                                         double epsilon = 1e-8);

// tir_optimal_token_baseline (verl's default: handle_zero_tail true).
AdvantageResult compute_multi_turn_optimal_token_baseline_advantage(
    const OptimalTokenBaselineInputs& in, bool handle_zero_tail = true, double epsilon = 1e-8);

}  // namespace verlpp::algo
