#include "verlpp/algo/gdpo.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/masked.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

const char* kFn = "adv_estimator gdpo";

std::string present(const std::map<std::string, at::Tensor>& rewards) {
  std::string out;
  for (const auto& [name, values] : rewards) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// A response's value as GRPO's sequence score: verl places it on the last valid token and GRPO
// sums over the tokens, so any one position of the row carries it (an empty response scores 0).
at::Tensor as_sequence_score(const at::Tensor& values, const at::Tensor& m) {
  const at::Tensor scores = values.to(m.scalar_type()) * m.sum(-1).gt(0).to(m.scalar_type());
  at::Tensor placed = at::zeros_like(m);
  placed.select(-1, 0).copy_(scores);
  return placed;
}

}  // namespace

AdvantageResult compute_gdpo_outcome_advantage(const std::map<std::string, at::Tensor>& rewards,
                                               const at::Tensor& response_mask,
                                               const at::Tensor& index, const GdpoConfig& config) {
  c10::NoGradGuard no_grad;
  require_dim(response_mask, 2, kFn, "response_mask");
  if (config.reward_keys.empty()) {
    throw Error(std::string(kFn) +
                ": algorithm.gdpo_reward_keys is empty; name the rewards to "
                "normalise, e.g. +algorithm.gdpo_reward_keys=[acc,format]");
  }
  if (!config.reward_weights.empty() && config.reward_weights.size() != config.reward_keys.size()) {
    throw Error(fmt::format("{}: algorithm.gdpo_reward_weights has {} entries for {} reward keys",
                            kFn, config.reward_weights.size(), config.reward_keys.size()));
  }
  const at::Tensor m =
      response_mask.is_floating_point() ? response_mask : response_mask.to(at::kFloat);
  const int64_t batch = m.size(0);
  at::Tensor combined = at::zeros_like(m);
  for (std::size_t k = 0; k < config.reward_keys.size(); ++k) {
    const std::string& key = config.reward_keys[k];
    const auto it = rewards.find(key);
    if (it == rewards.end()) {
      throw Error(
          fmt::format("algorithm.gdpo_reward_keys: the reward has no value '{}' (it gives: {})",
                      key, present(rewards)));
    }
    require_dim(it->second, 1, kFn, "reward '" + key + "'");
    if (it->second.size(0) != batch) {
      throw Error(fmt::format("{}: reward '{}' has {} values for a batch of {}", kFn, key,
                              it->second.size(0), batch));
    }
    const AdvantageResult a = compute_grpo_outcome_advantage(
        as_sequence_score(it->second.to(m.device()), m), m, index, config.norm_adv_by_std_in_grpo);
    const double w = config.reward_weights.empty() ? 1.0 : config.reward_weights[k];
    combined = combined + w * a.advantages;
  }
  const at::Tensor advantages = masked_whiten(combined, m) * m;
  return {advantages, advantages};
}

}  // namespace verlpp::algo
