#include "verlpp/reward/reward_manager.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "verlpp/core/error.h"

namespace verlpp::reward {
namespace {

void check_config(const RewardManagerConfig& config) {
  if (config.name != "naive" && config.name != "dapo" && config.name != "gdpo") {
    throw Error(fmt::format(
        "reward.reward_manager.name: '{}' is not a reward manager verlpp has (naive, dapo, gdpo)",
        config.name));
  }
  const auto& buffer = config.overlong_buffer;
  if (config.name == "dapo" && buffer.enable &&
      !(buffer.len > 0 && buffer.max_resp_len >= buffer.len)) {
    throw Error(
        fmt::format("reward.reward_kwargs.overlong_buffer_cfg: need max_resp_len >= len > 0, got "
                    "max_resp_len={} len={}",
                    buffer.max_resp_len, buffer.len));
  }
}

// " (train.jsonl line 5)" when the item knows its data row.
std::string where(const RewardItem& item) {
  return item.origin.empty() ? "" : " (" + item.origin + ")";
}

double overlong_penalty(const OverlongBufferConfig& buffer, std::int64_t valid_length) {
  const auto expected = static_cast<double>(buffer.max_resp_len - buffer.len);
  const double exceed = static_cast<double>(valid_length) - expected;
  return std::min(-exceed / static_cast<double>(buffer.len) * buffer.penalty_factor, 0.0);
}

// verl's reward_extra_info: a scalar score is recorded as "acc"; a scorer's named values (a dict in
// verl, "score" among them) are recorded under their names, which every row must give alike.
void add_extra_info(const ScoreResult& score, std::size_t row,
                    std::map<std::string, std::vector<double>>& extra) {
  if (score.extra.empty()) {
    extra["acc"].push_back(score.score);
    return;
  }
  for (const auto& [key, value] : score.extra) {
    std::vector<double>& values = extra[key];
    if (values.size() != row) {
      throw Error(
          fmt::format("reward row {}: the scorer gave '{}', which row {} lacked; every row "
                      "needs the same named values",
                      row, key, values.size()));
    }
    values.push_back(value);
  }
}

// Every named value present for every row.
void require_complete(const std::map<std::string, std::vector<double>>& extra, std::size_t rows) {
  for (const auto& [key, values] : extra) {
    if (values.size() != rows) {
      throw Error(
          fmt::format("reward row {}: the scorer gave no '{}', which earlier rows gave; "
                      "every row needs the same named values",
                      values.size(), key));
    }
  }
}

}  // namespace

RewardOutput compute_rewards(const RewardManagerConfig& config, const Scorer& scorer,
                             const std::vector<RewardItem>& items, std::int64_t response_length) {
  check_config(config);
  const bool overlong = config.name == "dapo" && config.overlong_buffer.enable;
  RewardOutput out;
  out.reward_tensor =
      at::zeros({static_cast<std::int64_t>(items.size()), response_length}, at::kFloat);
  auto rewards = out.reward_tensor.accessor<float, 2>();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const RewardItem& item = items[i];
    if (item.valid_response_length > response_length || item.valid_response_length < 0) {
      throw Error(fmt::format("reward item {}: valid_response_length {} outside [0, {}]", i,
                              item.valid_response_length, response_length));
    }
    ScoreResult score;
    try {
      score = scorer(item.data_source, item.response, item.ground_truth, item.extra_info);
    } catch (const Error& e) {
      throw Error(fmt::format("reward row {}{}: {}", i, where(item), e.what()));
    }
    if (!std::isfinite(score.score)) {
      throw Error(fmt::format("reward row {}{} (data_source '{}'): the score is {}, not finite", i,
                              where(item), item.data_source, score.score));
    }
    double reward = score.score;
    add_extra_info(score, i, out.extra);
    if (overlong) {
      const double penalty = overlong_penalty(config.overlong_buffer, item.valid_response_length);
      reward += penalty;
      if (config.overlong_buffer.log) {
        out.extra["overlong_reward"].push_back(penalty);
        out.extra["overlong"].push_back(penalty < 0 ? 1.0 : 0.0);
      }
    }
    if (item.valid_response_length > 0) {
      rewards[static_cast<std::int64_t>(i)][item.valid_response_length - 1] =
          static_cast<float>(reward);
    }
    out.scores.push_back(std::move(score));
  }
  require_complete(out.extra, items.size());
  return out;
}

}  // namespace verlpp::reward
