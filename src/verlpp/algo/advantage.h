// Advantage estimators (verl: verl/trainer/ppo/core_algos.py, ADV_ESTIMATOR_REGISTRY;
// formulas in verl.md §3.1), selected by algorithm.adv_estimator.
//
// Shapes: token_level_rewards, response_mask, values, advantages and returns are
// [batch, response_length]; index and reward_baselines are [batch]. response_mask is bool or 0/1
// floats. s_i = sum_t token_level_rewards[i, t] (the sequence score, over all positions). Results
// have the floating dtype of token_level_rewards and carry no autograd history. Bad shapes or a
// missing input throw verlpp::Error naming the estimator.
//
// Groups: `index` is int64 [batch], equal values = responses of the same prompt (see groups.h).
// A group of one response has mean 0 and std 1 unless an estimator says otherwise.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "verlpp/algo/registry.h"

namespace verlpp::algo {

// verl's epsilon in the GRPO denominators (std + 1e-6).
inline constexpr double kGrpoEpsilon = 1e-6;

struct AdvantageResult {
  at::Tensor advantages;  // [batch, response_length]
  at::Tensor returns;     // [batch, response_length]
};

// gae: reverse loop delta_t = r_t + gamma*V_next - V_t, A_t = delta_t + gamma*lam*A_next; masked
// tokens carry V_next and A_next through. returns = A + V; advantages = masked_whiten(A, mask)
// (not multiplied by the mask). Throws when fewer than 2 tokens are unmasked (whitening).
AdvantageResult compute_gae_advantage_return(const at::Tensor& token_level_rewards,
                                             const at::Tensor& values,
                                             const at::Tensor& response_mask, double gamma,
                                             double lam);

// grpo: A_i = (s_i - mean_g)/(std_g + epsilon), std unbiased; Dr.GRPO (norm_adv_by_std_in_grpo =
// false): A_i = s_i - mean_g. Broadcast over tokens times the mask; returns = advantages. A group
// whose rewards are all equal gets 0.
AdvantageResult compute_grpo_outcome_advantage(const at::Tensor& token_level_rewards,
                                               const at::Tensor& response_mask,
                                               const at::Tensor& index,
                                               bool norm_adv_by_std_in_grpo = true,
                                               double epsilon = kGrpoEpsilon);

// grpo_passk: only the best response of each group (lowest batch position among equal maxima)
// gets r_max - r_second_max, divided by (std_g + epsilon) when norm_adv_by_std_in_grpo; all others
// 0. Every group needs at least 2 responses (verlpp::Error otherwise).
AdvantageResult compute_grpo_passk_outcome_advantage(const at::Tensor& token_level_rewards,
                                                     const at::Tensor& response_mask,
                                                     const at::Tensor& index,
                                                     bool norm_adv_by_std_in_grpo = true,
                                                     double epsilon = kGrpoEpsilon);

// rloo: A_i = s_i*n/(n-1) - mean_g*n/(n-1) (= s_i minus the mean of the others); a group of one
// keeps s_i.
AdvantageResult compute_rloo_outcome_advantage(const at::Tensor& token_level_rewards,
                                               const at::Tensor& response_mask,
                                               const at::Tensor& index);

// rloo_vectorized: A_i = (c*s_i - sum_g s)/max(c-1, 1) for c > 1; a group of one gets 0.
AdvantageResult compute_rloo_vectorized_outcome_advantage(const at::Tensor& token_level_rewards,
                                                          const at::Tensor& response_mask,
                                                          const at::Tensor& index);

// opo: A_i = s_i - b_g with b_g = sum_j len_j*s_j / sum_j len_j (len = response_mask.sum(-1));
// b = 0 for a group of one. Deviation: where every response of a group is empty (sum len = 0)
// verl's 0/0 puts NaN into those all-masked rows; verlpp uses b = 0 there, so they are 0.
AdvantageResult compute_opo_outcome_advantage(const at::Tensor& token_level_rewards,
                                              const at::Tensor& response_mask,
                                              const at::Tensor& index);

// reinforce_plus_plus: reverse loop G_t = r_t + gamma*G_{t+1} on unmasked tokens, masked tokens
// carry G unchanged; returns = G*mask; advantages = masked_whiten(returns, mask)*mask.
AdvantageResult compute_reinforce_plus_plus_outcome_advantage(const at::Tensor& token_level_rewards,
                                                              const at::Tensor& response_mask,
                                                              double gamma);

// reinforce_plus_plus_baseline: (s_i - mean_g) tiled over tokens times the mask, then
// masked_whiten over the whole batch, times the mask; returns = advantages.
AdvantageResult compute_reinforce_plus_plus_baseline_outcome_advantage(
    const at::Tensor& token_level_rewards, const at::Tensor& response_mask,
    const at::Tensor& index);

// remax: returns = reverse cumulative sum of rewards*mask; advantages = returns -
// reward_baselines_i*mask, reward_baselines [batch] = score of a greedy response to the prompt.
AdvantageResult compute_remax_outcome_advantage(const at::Tensor& token_level_rewards,
                                                const at::Tensor& reward_baselines,
                                                const at::Tensor& response_mask);

// gpg: alpha = batch / max(#(s != 0), 1); A_i = alpha*(s_i - mean_g) (no std normalisation).
AdvantageResult compute_gpg_outcome_advantage(const at::Tensor& token_level_rewards,
                                              const at::Tensor& response_mask,
                                              const at::Tensor& index);

// ---- registry ------------------------------------------------------------------------------

// The tensors an estimator may use; each estimator names the ones it needs and throws
// verlpp::Error when one of them is missing.
struct AdvantageInputs {
  at::Tensor token_level_rewards;  // [batch, response_length]
  at::Tensor response_mask;        // [batch, response_length]
  at::Tensor index;                // int64 [batch], prompt group ids (group estimators)
  at::Tensor values;               // [batch, response_length], critic values (gae)
  at::Tensor reward_baselines;     // [batch], greedy-response scores (remax)
  // [batch, response_length] (optimal_token_baseline estimators): the actor's old log-probs,
  // sum_v pi_v^2 of the same pass, and the rollout correction's IS weights (optional).
  at::Tensor old_log_probs, sum_pi_squared, rollout_is_weights;
  // Named per-response rewards [batch] (gdpo): the reward's reward_extra_info values.
  std::map<std::string, at::Tensor> reward_values;
};

// The algorithm.* keys the estimators read, with verl's defaults.
struct AdvantageConfig {
  double gamma = 1.0;
  double lam = 1.0;
  bool norm_adv_by_std_in_grpo = true;
  std::vector<std::string> gdpo_reward_keys;  // algorithm.gdpo_reward_keys (gdpo.h)
  std::vector<double> gdpo_reward_weights;    // algorithm.gdpo_reward_weights; empty: all 1
};

using AdvantageEstimator =
    std::function<AdvantageResult(const AdvantageInputs&, const AdvantageConfig&)>;

// verl's names: gae, grpo, grpo_vectorized (same result as grpo), grpo_passk, rloo,
// rloo_vectorized, opo, reinforce_plus_plus, reinforce_plus_plus_baseline, remax, gpg,
// optimal_token_baseline, tir_optimal_token_baseline (optimal_token_baseline.h), gdpo (gdpo.h).
Registry<AdvantageEstimator>& advantage_estimators();

// advantage_estimators().get(adv_estimator)(inputs, config).
AdvantageResult compute_advantage(const std::string& adv_estimator, const AdvantageInputs& inputs,
                                  const AdvantageConfig& config = {});

}  // namespace verlpp::algo
