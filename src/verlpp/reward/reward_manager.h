// Reward managers: score a batch of decoded responses and place each reward on the response's
// last valid token (verl/experimental/reward_loop/reward_manager/{naive,dapo}.py and the legacy
// verl/workers/reward_manager/{naive,dapo}.py).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verlpp/reward/dispatch.h"

namespace verlpp::reward {

// One response to score. `response` is the decoded valid response (special tokens skipped);
// `valid_response_length` is its token count (sum of its response attention mask).
struct RewardItem {
  std::string response;
  std::int64_t valid_response_length = 0;
  std::string data_source;
  std::string ground_truth;
  nlohmann::json extra_info;
  std::string origin;  // where the row came from ("train.jsonl line 5"), for errors; may be empty
};

// DAPO's overlong buffer (reward.reward_kwargs.overlong_buffer_cfg.{enable,len,penalty_factor,log}
// and reward.reward_kwargs.max_resp_len in verl).
struct OverlongBufferConfig {
  bool enable = false;
  std::int64_t len = 0;
  double penalty_factor = 1.0;
  bool log = false;
  std::int64_t max_resp_len = 0;
};

// reward.reward_manager.name ("naive", "dapo", or "gdpo": verl's reward loop registers it for
// GDPO runs and it scores as naive does) and the DAPO overlong settings.
struct RewardManagerConfig {
  std::string name = "naive";
  OverlongBufferConfig overlong_buffer;
};

struct RewardOutput {
  at::Tensor reward_tensor;         // [batch, response_length] float32; reward at valid_length - 1
  std::vector<ScoreResult> scores;  // per item, before the overlong penalty
  // verl's reward_extra_info: "acc" (the score) for every manager; "overlong_reward" and
  // "overlong" (1.0/0.0) for dapo with overlong_buffer.log.
  std::map<std::string, std::vector<double>> extra;
};

// Scores `items` with `scorer`. naive: reward = score. dapo: reward = score plus, when
// overlong_buffer.enable, min(-(L - (max_resp_len - len)) / len * penalty_factor, 0) with L the
// valid response length (verl dapo.py). An item with valid length 0 gets no reward in the tensor.
// Throws verlpp::Error for an unknown manager name, or for dapo with enable and not
// max_resp_len >= len > 0 (verl asserts it), or a valid length above response_length.
RewardOutput compute_rewards(const RewardManagerConfig& config, const Scorer& scorer,
                             const std::vector<RewardItem>& items, std::int64_t response_length);

}  // namespace verlpp::reward
