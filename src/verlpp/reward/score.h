// The result of scoring one response, shared by every scorer and reward manager.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace verlpp::reward {

// One response's reward. `score` is the scalar reward (verl: the number a compute_score returns, or
// its dict's "score"); `extracted` is the answer the scorer read from the response (nullopt when it
// found none), so users can see why a response got the reward it got; `extra` holds further named
// values (verl's reward_extra_info, e.g. "acc").
struct ScoreResult {
  double score = 0.0;
  std::optional<std::string> extracted;
  std::map<std::string, double> extra;
};

// Scoring behaviour shared by the rule scorers.
//   verl_compat = false (default): verlpp's corrected extraction (see gsm8k.h).
//   verl_compat = true: verl's extraction exactly, including its known mis-scores. Set from config
//   with `+reward.reward_kwargs.verl_compat=true` or `verlpp reward --verl-compat`.
struct RuleOptions {
  bool verl_compat = false;
};

}  // namespace verlpp::reward
