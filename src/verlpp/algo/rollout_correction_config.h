// algorithm.rollout_correction's settings and their rules, without LibTorch: `verlpp check`
// (config/) validates them, algo/rollout_correction.h computes with them (verl:
// verl/trainer/config/algorithm.py RolloutCorrectionConfig, rollout_corr_helper.py
// _parse_rollout_rs_thresholds; the formulas are in rollout_correction.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace verlpp::algo {

// algorithm.rollout_correction.*, verl's defaults.
struct RolloutCorrectionConfig {
  std::optional<std::string> rollout_is;  // "token" | "sequence"; unset: no IS weights
  double rollout_is_threshold = 2.0;
  bool rollout_is_batch_normalize = false;
  std::optional<std::string> rollout_rs;            // e.g. "token_k1,seq_mean_k3"
  std::optional<std::string> rollout_rs_threshold;  // e.g. "0.5_2.0", "2.0", "2.0,0.01"
  bool bypass_mode = false;            // old_log_probs := rollout_log_probs, no recompute
  std::string loss_type = "ppo_clip";  // bypass mode's loss: ppo_clip | reinforce
};

// One rejection option with its bounds (lower only for k1, as a ratio, not a log).
struct RejectionOption {
  std::string name;
  std::optional<double> lower;
  double upper = 0.0;
};

// rollout_rs and rollout_rs_threshold parsed as verl parses them. Throws verlpp::Error naming
// algorithm.rollout_correction.rollout_rs or .rollout_rs_threshold for an unknown option, a
// missing, non-numeric, non-positive or mis-counted threshold, or a "lower_upper" pair on a k2/k3
// option.
std::vector<RejectionOption> parse_rejection_options(const std::string& rollout_rs,
                                                     const std::optional<std::string>& threshold);

// Every setting checked (rollout_is, a positive rollout_is_threshold, the rejection options,
// loss_type). Throws verlpp::Error naming the key.
void validate_rollout_correction(const RolloutCorrectionConfig& config);

}  // namespace verlpp::algo
