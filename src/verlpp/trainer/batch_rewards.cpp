#include "verlpp/trainer/batch_rewards.h"

#include <ATen/ATen.h>

#include "verlpp/core/error.h"
#include "verlpp/data/rl_dataset.h"

namespace verlpp::trainer {
namespace {

// "reward: row I (FILE line L)": the batch row and, where the data told it, its file and line.
std::string row_name(const data::Batch& batch, std::int64_t row) {
  std::string name = "reward: row " + std::to_string(row);
  if (batch.has_non_tensor(data::kDataOrigin)) {
    const nlohmann::json& origin =
        batch.non_tensor(data::kDataOrigin)[static_cast<std::size_t>(row)];
    if (origin.is_string()) name += " (" + origin.get<std::string>() + ")";
  }
  return name;
}

std::string string_field(const data::Batch& batch, const nlohmann::json& value,
                         const std::string& what, std::int64_t row) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  throw Error(row_name(batch, row) + " has no string " + what + " (got " + value.dump() + ")");
}

std::string ground_truth(const data::Batch& batch, std::int64_t row) {
  if (!batch.has_non_tensor("reward_model")) {
    throw Error("reward: the data has no 'reward_model' column with a ground_truth");
  }
  const nlohmann::json& rm = batch.non_tensor("reward_model")[static_cast<std::size_t>(row)];
  if (!rm.is_object() || !rm.contains("ground_truth")) {
    throw Error(row_name(batch, row) + " has no reward_model.ground_truth");
  }
  return string_field(batch, rm["ground_truth"], "reward_model.ground_truth", row);
}

std::vector<reward::RewardItem> reward_items(const data::Batch& batch,
                                             const tokenizer::Tokenizer& tokenizer,
                                             const std::string& reward_fn_key) {
  const at::Tensor responses = batch.tensor("responses").to(at::kCPU).to(at::kInt).contiguous();
  const at::Tensor lengths = batch.tensor("response_mask").ne(0).sum(1).to(at::kCPU).to(at::kLong);
  if (!batch.has_non_tensor(reward_fn_key)) {
    throw Error("reward: the data has no '" + reward_fn_key + "' column (data.reward_fn_key)");
  }
  std::vector<reward::RewardItem> items;
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    reward::RewardItem item;
    item.valid_response_length = lengths[i].item<std::int64_t>();
    const auto* ids = responses[i].data_ptr<std::int32_t>();
    item.response = tokenizer.decode(
        std::span<const std::int32_t>(ids, static_cast<std::size_t>(item.valid_response_length)),
        true);
    item.data_source = string_field(
        batch, batch.non_tensor(reward_fn_key)[static_cast<std::size_t>(i)], reward_fn_key, i);
    item.ground_truth = ground_truth(batch, i);
    if (batch.has_non_tensor("extra_info")) {
      item.extra_info = batch.non_tensor("extra_info")[static_cast<std::size_t>(i)];
    }
    if (batch.has_non_tensor(data::kDataOrigin)) {
      const nlohmann::json& origin =
          batch.non_tensor(data::kDataOrigin)[static_cast<std::size_t>(i)];
      if (origin.is_string()) item.origin = origin.get<std::string>();
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace

BatchRewards compute_batch_rewards(const data::Batch& batch, const tokenizer::Tokenizer& tokenizer,
                                   const reward::RewardSettings& settings,
                                   const std::string& reward_fn_key) {
  const reward::Scorer scorer(settings.scorer);
  const auto items = reward_items(batch, tokenizer, reward_fn_key);
  reward::RewardOutput out =
      reward::compute_rewards(settings.manager, scorer, items, batch.tensor("responses").size(1));
  BatchRewards result;
  result.token_level_scores = out.reward_tensor;
  for (const auto& score : out.scores) {
    result.scores.push_back(score.score);
    result.extracted.push_back(score.extracted);
  }
  result.extra = std::move(out.extra);
  return result;
}

}  // namespace verlpp::trainer
