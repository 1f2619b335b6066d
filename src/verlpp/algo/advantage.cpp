#include "verlpp/algo/advantage.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <vector>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/gdpo.h"
#include "verlpp/algo/groups.h"
#include "verlpp/algo/masked.h"
#include "verlpp/algo/optimal_token_baseline.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

// Validates rewards [batch, response_length] and the mask; returns the mask as rewards' dtype.
at::Tensor checked_mask(const at::Tensor& rewards, const at::Tensor& mask, const std::string& fn) {
  require_dim(rewards, 2, fn, "token_level_rewards");
  if (!at::isFloatingType(rewards.scalar_type())) {
    throw Error(fn + ": token_level_rewards must be floating point");
  }
  require_same_shape(rewards, "token_level_rewards", mask, "response_mask", fn);
  return mask_like(mask, rewards);
}

// A per-sequence advantage [batch] broadcast over tokens and masked; returns = advantages.
AdvantageResult outcome(const at::Tensor& per_sequence, const at::Tensor& mask) {
  const at::Tensor advantages = per_sequence.unsqueeze(-1) * mask;
  return {advantages, advantages};
}

}  // namespace

AdvantageResult compute_gae_advantage_return(const at::Tensor& token_level_rewards,
                                             const at::Tensor& values,
                                             const at::Tensor& response_mask, double gamma,
                                             double lam) {
  const std::string fn = "adv_estimator gae";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  require_same_shape(token_level_rewards, "token_level_rewards", values, "values", fn);
  const at::Tensor v = values.to(token_level_rewards.scalar_type());
  const int64_t length = token_level_rewards.size(1);
  at::Tensor next_value = at::zeros({token_level_rewards.size(0)}, token_level_rewards.options());
  at::Tensor next_advantage = at::zeros_like(next_value);
  std::vector<at::Tensor> columns(length);
  for (int64_t t = length - 1; t >= 0; --t) {
    const at::Tensor m_t = m.select(1, t);
    const at::Tensor v_t = v.select(1, t);
    const at::Tensor delta = token_level_rewards.select(1, t) + gamma * next_value - v_t;
    const at::Tensor a_t = delta + gamma * lam * next_advantage;
    columns[t] = a_t;
    next_value = v_t * m_t + (1 - m_t) * next_value;
    next_advantage = a_t * m_t + (1 - m_t) * next_advantage;
  }
  const at::Tensor advantages =
      length == 0 ? at::zeros_like(token_level_rewards) : at::stack(columns, 1);
  return {masked_whiten(advantages, m), advantages + v};
}

AdvantageResult compute_grpo_outcome_advantage(const at::Tensor& token_level_rewards,
                                               const at::Tensor& response_mask,
                                               const at::Tensor& index,
                                               bool norm_adv_by_std_in_grpo, double epsilon) {
  const std::string fn = "adv_estimator grpo";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const Groups groups = make_groups(index, token_level_rewards.size(0), fn);
  const at::Tensor scores = token_level_rewards.sum(-1);
  at::Tensor a = scores - group_mean(scores, groups);
  if (norm_adv_by_std_in_grpo) a = a / (group_std(scores, groups) + epsilon);
  return outcome(a, m);
}

AdvantageResult compute_grpo_passk_outcome_advantage(const at::Tensor& token_level_rewards,
                                                     const at::Tensor& response_mask,
                                                     const at::Tensor& index,
                                                     bool norm_adv_by_std_in_grpo, double epsilon) {
  const std::string fn = "adv_estimator grpo_passk";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const int64_t batch = token_level_rewards.size(0);
  const Groups groups = make_groups(index, batch, fn);
  const at::Tensor scores = token_level_rewards.sum(-1);
  const at::Tensor sizes = groups.sizes.cpu();
  if (batch > 0 && sizes.min().item<int64_t>() < 2) {
    throw Error(fn + ": every prompt group needs at least 2 responses (rollout.n >= 2)");
  }
  const at::Tensor s = scores.to(at::kCPU, at::kDouble).contiguous();
  const at::Tensor stdev = group_std(s, groups);
  const at::Tensor group = groups.inverse.cpu().contiguous();
  const double* sp = s.data_ptr<double>();
  const int64_t* gp = group.data_ptr<int64_t>();
  std::vector<int64_t> best(groups.count, -1), second(groups.count, -1);
  for (int64_t i = 0; i < batch; ++i) {
    int64_t& b = best[gp[i]];
    int64_t& c = second[gp[i]];
    if (b < 0 || sp[i] > sp[b]) {
      c = b;
      b = i;
    } else if (c < 0 || sp[i] > sp[c]) {
      c = i;
    }
  }
  const at::Tensor stdev_cpu = stdev.contiguous();
  const double* stdp = stdev_cpu.data_ptr<double>();
  std::vector<double> a(batch, 0.0);
  for (int64_t g = 0; g < groups.count; ++g) {
    double value = sp[best[g]] - sp[second[g]];
    if (norm_adv_by_std_in_grpo) value /= stdp[best[g]] + epsilon;
    a[best[g]] = value;
  }
  return outcome(at::tensor(a, at::kDouble).to(scores.device(), scores.scalar_type()), m);
}

AdvantageResult compute_rloo_outcome_advantage(const at::Tensor& token_level_rewards,
                                               const at::Tensor& response_mask,
                                               const at::Tensor& index) {
  const std::string fn = "adv_estimator rloo";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const Groups groups = make_groups(index, token_level_rewards.size(0), fn);
  const at::Tensor scores = token_level_rewards.sum(-1);
  const at::Tensor n = groups.sizes.to(scores.device(), scores.scalar_type());
  const at::Tensor factor = n / at::clamp_min(n - 1, 1);
  const at::Tensor loo = scores * factor - group_mean(scores, groups) * factor;
  return outcome(at::where(n > 1, loo, scores), m);
}

AdvantageResult compute_rloo_vectorized_outcome_advantage(const at::Tensor& token_level_rewards,
                                                          const at::Tensor& response_mask,
                                                          const at::Tensor& index) {
  const std::string fn = "adv_estimator rloo_vectorized";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const Groups groups = make_groups(index, token_level_rewards.size(0), fn);
  const at::Tensor scores = token_level_rewards.sum(-1);
  const at::Tensor c = groups.sizes.to(scores.device(), scores.scalar_type());
  const at::Tensor loo = (c * scores - group_sum(scores, groups)) / at::clamp_min(c - 1, 1);
  return outcome(at::where(c > 1, loo, at::zeros_like(loo)), m);
}

AdvantageResult compute_opo_outcome_advantage(const at::Tensor& token_level_rewards,
                                              const at::Tensor& response_mask,
                                              const at::Tensor& index) {
  const std::string fn = "adv_estimator opo";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const Groups groups = make_groups(index, token_level_rewards.size(0), fn);
  const at::Tensor scores = token_level_rewards.sum(-1);
  const at::Tensor lengths = m.sum(-1);
  const at::Tensor total_length = group_sum(lengths, groups);
  const at::Tensor n = groups.sizes.to(scores.device());
  const at::Tensor use_baseline = (n > 1) & (total_length > 0);
  const at::Tensor baseline =
      at::where(use_baseline, group_sum(lengths * scores, groups) / at::clamp_min(total_length, 1),
                at::zeros_like(scores));
  return outcome(scores - baseline, m);
}

AdvantageResult compute_reinforce_plus_plus_outcome_advantage(const at::Tensor& token_level_rewards,
                                                              const at::Tensor& response_mask,
                                                              double gamma) {
  const std::string fn = "adv_estimator reinforce_plus_plus";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const int64_t length = token_level_rewards.size(1);
  at::Tensor running = at::zeros({token_level_rewards.size(0)}, token_level_rewards.options());
  std::vector<at::Tensor> columns(length);
  for (int64_t t = length - 1; t >= 0; --t) {
    const at::Tensor m_t = m.select(1, t);
    running = at::where(m_t > 0, token_level_rewards.select(1, t) + gamma * running, running);
    columns[t] = running;
  }
  const at::Tensor returns =
      length == 0 ? at::zeros_like(token_level_rewards) : at::stack(columns, 1) * m;
  return {masked_whiten(returns, m) * m, returns};
}

AdvantageResult compute_reinforce_plus_plus_baseline_outcome_advantage(
    const at::Tensor& token_level_rewards, const at::Tensor& response_mask,
    const at::Tensor& index) {
  const std::string fn = "adv_estimator reinforce_plus_plus_baseline";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const Groups groups = make_groups(index, token_level_rewards.size(0), fn);
  const at::Tensor scores = token_level_rewards.sum(-1);
  const at::Tensor tiled = (scores - group_mean(scores, groups)).unsqueeze(-1) * m;
  const at::Tensor advantages = masked_whiten(tiled, m) * m;
  return {advantages, advantages};
}

AdvantageResult compute_remax_outcome_advantage(const at::Tensor& token_level_rewards,
                                                const at::Tensor& reward_baselines,
                                                const at::Tensor& response_mask) {
  const std::string fn = "adv_estimator remax";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  require_dim(reward_baselines, 1, fn, "reward_baselines");
  if (reward_baselines.size(0) != token_level_rewards.size(0)) {
    throw Error(fn + ": reward_baselines has " + std::to_string(reward_baselines.size(0)) +
                " entries but the batch has " + std::to_string(token_level_rewards.size(0)));
  }
  const at::Tensor returns = (token_level_rewards * m).flip({-1}).cumsum(-1).flip({-1});
  const at::Tensor baselines = reward_baselines.to(token_level_rewards.scalar_type());
  return {returns - baselines.unsqueeze(-1) * m, returns};
}

AdvantageResult compute_gpg_outcome_advantage(const at::Tensor& token_level_rewards,
                                              const at::Tensor& response_mask,
                                              const at::Tensor& index) {
  const std::string fn = "adv_estimator gpg";
  c10::NoGradGuard no_grad;
  const at::Tensor m = checked_mask(token_level_rewards, response_mask, fn);
  const int64_t batch = token_level_rewards.size(0);
  const Groups groups = make_groups(index, batch, fn);
  const at::Tensor scores = token_level_rewards.sum(-1);
  const int64_t nonzero = (scores != 0).sum().item<int64_t>();
  const double alpha =
      static_cast<double>(batch) / static_cast<double>(std::max<int64_t>(nonzero, 1));
  return outcome(alpha * (scores - group_mean(scores, groups)), m);
}

Registry<AdvantageEstimator>& advantage_estimators() {
  static Registry<AdvantageEstimator> registry = [] {
    Registry<AdvantageEstimator> r("algorithm.adv_estimator");
    r.add("gdpo", [](const AdvantageInputs& in, const AdvantageConfig& c) {
      return compute_gdpo_outcome_advantage(
          in.reward_values, in.response_mask, in.index,
          {c.gdpo_reward_keys, c.gdpo_reward_weights, c.norm_adv_by_std_in_grpo});
    });
    const auto otb_inputs = [](const AdvantageInputs& in) {
      return OptimalTokenBaselineInputs{
          in.token_level_rewards, in.response_mask,  in.index,
          in.old_log_probs,       in.sum_pi_squared, in.rollout_is_weights};
    };
    r.add("optimal_token_baseline",
          [otb_inputs](const AdvantageInputs& in, const AdvantageConfig&) {
            return compute_optimal_token_baseline_advantage(otb_inputs(in));
          });
    r.add("tir_optimal_token_baseline",
          [otb_inputs](const AdvantageInputs& in, const AdvantageConfig&) {
            return compute_multi_turn_optimal_token_baseline_advantage(otb_inputs(in));
          });
    r.add("gae", [](const AdvantageInputs& in, const AdvantageConfig& c) {
      return compute_gae_advantage_return(in.token_level_rewards, in.values, in.response_mask,
                                          c.gamma, c.lam);
    });
    const auto grpo = [](const AdvantageInputs& in, const AdvantageConfig& c) {
      return compute_grpo_outcome_advantage(in.token_level_rewards, in.response_mask, in.index,
                                            c.norm_adv_by_std_in_grpo);
    };
    r.add("grpo", grpo);
    r.add("grpo_vectorized", grpo);
    r.add("grpo_passk", [](const AdvantageInputs& in, const AdvantageConfig& c) {
      return compute_grpo_passk_outcome_advantage(in.token_level_rewards, in.response_mask,
                                                  in.index, c.norm_adv_by_std_in_grpo);
    });
    r.add("rloo", [](const AdvantageInputs& in, const AdvantageConfig&) {
      return compute_rloo_outcome_advantage(in.token_level_rewards, in.response_mask, in.index);
    });
    r.add("rloo_vectorized", [](const AdvantageInputs& in, const AdvantageConfig&) {
      return compute_rloo_vectorized_outcome_advantage(in.token_level_rewards, in.response_mask,
                                                       in.index);
    });
    r.add("opo", [](const AdvantageInputs& in, const AdvantageConfig&) {
      return compute_opo_outcome_advantage(in.token_level_rewards, in.response_mask, in.index);
    });
    r.add("reinforce_plus_plus", [](const AdvantageInputs& in, const AdvantageConfig& c) {
      return compute_reinforce_plus_plus_outcome_advantage(in.token_level_rewards, in.response_mask,
                                                           c.gamma);
    });
    r.add("reinforce_plus_plus_baseline", [](const AdvantageInputs& in, const AdvantageConfig&) {
      return compute_reinforce_plus_plus_baseline_outcome_advantage(in.token_level_rewards,
                                                                    in.response_mask, in.index);
    });
    r.add("remax", [](const AdvantageInputs& in, const AdvantageConfig&) {
      return compute_remax_outcome_advantage(in.token_level_rewards, in.reward_baselines,
                                             in.response_mask);
    });
    r.add("gpg", [](const AdvantageInputs& in, const AdvantageConfig&) {
      return compute_gpg_outcome_advantage(in.token_level_rewards, in.response_mask, in.index);
    });
    return r;
  }();
  return registry;
}

AdvantageResult compute_advantage(const std::string& adv_estimator, const AdvantageInputs& inputs,
                                  const AdvantageConfig& config) {
  return advantage_estimators().get(adv_estimator)(inputs, config);
}

}  // namespace verlpp::algo
