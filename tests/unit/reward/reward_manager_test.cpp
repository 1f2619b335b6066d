// Reward managers: placement at the last valid token and DAPO's overlong penalty, worked by hand
// from verl's dapo.py: expected = max_resp_len - len; exceed = L - expected;
// penalty = min(-exceed / len * factor, 0).
#include "verlpp/reward/reward_manager.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "verlpp/core/error.h"

namespace verlpp::reward {
namespace {

std::vector<RewardItem> items() {
  return {{"#### 72", 8, "openai/gsm8k", "72", {}, ""},
          {"#### 5", 5, "openai/gsm8k", "72", {}, ""},
          {"#### 72", 10, "openai/gsm8k", "72", {}, ""}};
}

TEST(RewardManager, NaivePlacesScoreOnLastValidToken) {
  const auto out = compute_rewards({}, Scorer(ScorerConfig{}), items(), 10);
  ASSERT_EQ(out.reward_tensor.sizes(), (at::IntArrayRef{3, 10}));
  EXPECT_EQ(out.reward_tensor[0][7].item<float>(), 1.0f);
  EXPECT_EQ(out.reward_tensor[2][9].item<float>(), 1.0f);
  EXPECT_EQ(out.reward_tensor.sum().item<float>(), 2.0f);
  EXPECT_EQ(out.extra.at("acc"), (std::vector<double>{1.0, 0.0, 1.0}));
}

// verl's reward loop registers a gdpo manager for GDPO runs; it scores as naive does (the
// score at the last valid token, acc in reward_extra_info), and no overlong penalty applies.
TEST(RewardManager, GdpoScoresAsNaive) {
  RewardManagerConfig config;
  config.name = "gdpo";
  config.overlong_buffer = {.enable = true, .len = 4, .max_resp_len = 10};
  const auto out = compute_rewards(config, Scorer(ScorerConfig{}), items(), 10);
  EXPECT_EQ(out.reward_tensor[0][7].item<float>(), 1.0f);
  EXPECT_EQ(out.reward_tensor[2][9].item<float>(), 1.0f);
  EXPECT_EQ(out.reward_tensor.sum().item<float>(), 2.0f);
  EXPECT_EQ(out.extra.at("acc"), (std::vector<double>{1.0, 0.0, 1.0}));
}

TEST(RewardManager, DapoOverlongPenalty) {
  RewardManagerConfig config;
  config.name = "dapo";
  config.overlong_buffer = {
      .enable = true, .len = 4, .penalty_factor = 1.0, .log = true, .max_resp_len = 10};
  const auto out = compute_rewards(config, Scorer(ScorerConfig{}), items(), 10);
  // expected = 6. L=8: exceed 2, penalty -0.5 -> 1 - 0.5. L=5: exceed -1 -> 0. L=10: -1 -> 1 - 1.
  EXPECT_FLOAT_EQ(out.reward_tensor[0][7].item<float>(), 0.5f);
  EXPECT_FLOAT_EQ(out.reward_tensor[1][4].item<float>(), 0.0f);
  EXPECT_FLOAT_EQ(out.reward_tensor[2][9].item<float>(), 0.0f);
  EXPECT_EQ(out.extra.at("overlong_reward"), (std::vector<double>{-0.5, 0.0, -1.0}));
  EXPECT_EQ(out.extra.at("overlong"), (std::vector<double>{1.0, 0.0, 1.0}));
}

TEST(RewardManager, ScorerErrorsNameTheRow) {
  ScorerConfig custom;
  custom.custom_path = CUSTOM_REWARD_LIB;
  custom.custom_name = "always_infinite";
  try {
    compute_rewards({}, Scorer(custom), items(), 10);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("reward row 0: custom reward 'always_infinite'", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// A break-test's reward error named "row 1" of the repeated batch; the data row is what a user can
// find.
TEST(RewardManager, ScorerErrorsNameTheDataRow) {
  ScorerConfig custom;
  custom.custom_path = CUSTOM_REWARD_LIB;
  custom.custom_name = "always_infinite";
  std::vector<RewardItem> rows = items();
  rows[0].origin = "train.jsonl line 7";
  try {
    compute_rewards({}, Scorer(custom), rows, 10);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("reward row 0 (train.jsonl line 7): custom reward 'always_infinite'", 0),
              0u)
        << what;
  }
}

TEST(RewardManager, BadConfig) {
  RewardManagerConfig config;
  config.name = "prime";
  EXPECT_THROW(compute_rewards(config, Scorer(ScorerConfig{}), items(), 10), Error);
  config.name = "dapo";
  config.overlong_buffer = {.enable = true, .len = 0, .max_resp_len = 10};
  EXPECT_THROW(compute_rewards(config, Scorer(ScorerConfig{}), items(), 10), Error);
  EXPECT_THROW(compute_rewards({}, Scorer(ScorerConfig{}), items(), 9), Error);
}

}  // namespace
}  // namespace verlpp::reward
