// GDPO, group reward-decoupled normalisation for several rewards (verl: adv_estimator gdpo,
// verl.md §3.1; arXiv 2601.05242): each named reward is normalised within its prompt group on its
// own before the rewards are combined, so that one reward's spread does not drown another's.
//
// Shapes: response_mask [batch, response_length] (bool or 0/1); index int64 [batch] (groups.h);
// each reward in `rewards` is [batch], one value per response (verl's reward_extra_info entry of
// that name). For each reward k, with the value as the response's sequence score (verl places it
// on the last valid token; an empty response scores 0), A_k = GRPO(that, index) ((s -
// mean_g)/(std_g + 1e-6), std unbiased; s - mean_g without norm_adv_by_std_in_grpo; advantage.h); A
// = sum_k w_k * A_k; advantages = masked_whiten(A, m) * m over the whole batch; returns =
// advantages. Results are in the mask's floating dtype (float32 for a bool mask). Throws
// verlpp::Error naming the key for a reward missing from `rewards` (listing those present), a
// weights list of another length, or mis-shaped inputs.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <string>
#include <vector>

#include "verlpp/algo/advantage.h"

namespace verlpp::algo {

struct GdpoConfig {
  std::vector<std::string> reward_keys;  // algorithm.gdpo_reward_keys
  std::vector<double> reward_weights;    // algorithm.gdpo_reward_weights; empty: all 1
  bool norm_adv_by_std_in_grpo = true;
};

AdvantageResult compute_gdpo_outcome_advantage(const std::map<std::string, at::Tensor>& rewards,
                                               const at::Tensor& response_mask,
                                               const at::Tensor& index, const GdpoConfig& config);

}  // namespace verlpp::algo
