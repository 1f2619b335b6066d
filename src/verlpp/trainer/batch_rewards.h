// Rewards of a generated batch (verl's reward loop, verl/experimental/reward_loop and the
// naive/dapo managers): each row's valid response is decoded (special tokens skipped), scored by
// the configured scorer with the row's data_source (data.reward_fn_key column),
// reward_model.ground_truth and extra_info, and the score is placed on its last valid token.
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/data/batch.h"
#include "verlpp/reward/reward_settings.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::trainer {

struct BatchRewards {
  at::Tensor token_level_scores;                      // fp32 [B, R] on the CPU
  std::vector<double> scores;                         // per row
  std::vector<std::optional<std::string>> extracted;  // the scorer's answer, per row
  std::map<std::string, std::vector<double>> extra;   // reward_extra_info ("acc", ...)
};

// Needs tensors responses and response_mask [B, R] and non-tensors `reward_fn_key` and
// reward_model ({"ground_truth": ...}); extra_info is optional. Throws verlpp::Error naming the
// row and key when one is missing, or the scorer's error for an unknown data_source.
BatchRewards compute_batch_rewards(const data::Batch& batch, const tokenizer::Tokenizer& tokenizer,
                                   const reward::RewardSettings& settings,
                                   const std::string& reward_fn_key);

}  // namespace verlpp::trainer
