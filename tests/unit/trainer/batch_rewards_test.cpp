#include "verlpp/trainer/batch_rewards.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "verlpp/core/error.h"
#include "verlpp/data/rl_dataset.h"

namespace verlpp::trainer {
namespace {

const tokenizer::Tokenizer& qwen3() {
  static const tokenizer::Tokenizer tok = tokenizer::Tokenizer::from_directory(
      std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/tokenizers/qwen3");
  return tok;
}

// Two GSM8K responses right-padded to width 32 with pad id 0; only the first is right.
data::Batch gsm8k_batch(const std::vector<std::string>& texts, std::vector<std::int64_t>& lengths) {
  const std::int64_t width = 32;
  at::Tensor responses = at::zeros({2, width}, at::kLong), mask = at::zeros({2, width}, at::kLong);
  for (std::int64_t i = 0; i < 2; ++i) {
    const auto ids = qwen3().encode(texts[static_cast<std::size_t>(i)]);
    lengths.push_back(static_cast<std::int64_t>(ids.size()));
    for (std::size_t t = 0; t < ids.size(); ++t) {
      responses[i][static_cast<std::int64_t>(t)] = ids[t];
      mask[i][static_cast<std::int64_t>(t)] = 1;
    }
  }
  data::Batch batch;
  batch.set_tensor("responses", responses);
  batch.set_tensor("response_mask", mask);
  batch.set_non_tensor("data_source", {"openai/gsm8k", "openai/gsm8k"});
  batch.set_non_tensor("reward_model", {{{"ground_truth", "72"}}, {{"ground_truth", "72"}}});
  return batch;
}

TEST(BatchRewards, Gsm8kScoreOnTheLastValidTokenOfTheDecodedResponse) {
  std::vector<std::int64_t> lengths;
  const data::Batch batch = gsm8k_batch(
      {"She sold 48 + 24 = 72 clips.\n#### 72<|im_end|>", "#### 71<|im_end|>"}, lengths);
  const BatchRewards r = compute_batch_rewards(batch, qwen3(), {}, "data_source");
  ASSERT_EQ(r.token_level_scores.sizes(), (at::IntArrayRef{2, 32}));
  EXPECT_EQ(r.scores, (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(r.token_level_scores[0][lengths[0] - 1].item<float>(), 1.0f);
  EXPECT_EQ(r.token_level_scores.sum().item<float>(), 1.0f);
  EXPECT_EQ(r.extracted[0], "72");
  EXPECT_EQ(r.extracted[1], "71");
}

TEST(BatchRewards, MissingColumnsNameTheKey) {
  std::vector<std::int64_t> lengths;
  const data::Batch batch = gsm8k_batch({"#### 72", "#### 7"}, lengths);
  try {
    compute_batch_rewards(batch, qwen3(), {}, "source");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'source'"), std::string::npos) << e.what();
  }
}

// A row without a ground truth or data_source is named by its file and line, as the dataset told
// them (a break-test got "row 2", a place in the shuffled batch, and no file).
TEST(BatchRewards, ARowWithoutGroundTruthOrSourceNamesItsFileAndLine) {
  std::vector<std::int64_t> lengths;
  data::Batch batch = gsm8k_batch({"#### 72", "#### 7"}, lengths);
  batch.set_non_tensor(data::kDataOrigin, {"train.jsonl line 3", "train.jsonl line 4"});
  batch.set_non_tensor("reward_model", {{{"ground_truth", "72"}}, {{"style", "rule"}}});
  try {
    compute_batch_rewards(batch, qwen3(), {}, "data_source");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "reward: row 1 (train.jsonl line 4) has no reward_model.ground_truth");
  }
  batch.set_non_tensor("reward_model", {{{"ground_truth", "72"}}, {{"ground_truth", "7"}}});
  batch.set_non_tensor("data_source", {"openai/gsm8k", nullptr});
  try {
    compute_batch_rewards(batch, qwen3(), {}, "data_source");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "reward: row 1 (train.jsonl line 4) has no string data_source (got null)");
  }
}

}  // namespace
}  // namespace verlpp::trainer
