// verl's training/rollout_probs_diff_* and rollout_actor_probs_pearson_corr on a hand-worked case.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

#include "algo_test_util.h"
#include "verlpp/algo/rollout_probs_diff.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

using testing::mat;

// Response tokens (mask 1): p_actor [1/2, 1/4, 4/5], p_rollout [2/5, 1/4, 3/5]; the masked entries
// differ wildly and must not count. |diff| = [0.1, 0, 0.2]: max 0.2, mean 0.1, unbiased std
// sqrt((0 + 0.01 + 0.01) / 2) = 0.1. Pearson: with means 31/60 and 25/60, the centred sums are
// Σdx·dy = 29/300, Σdx² = 91/600, Σdy² = 37/600, r = (29/300) / sqrt(91·37 / 600²).
TEST(RolloutProbsDiff, HandWorkedOverResponseTokens) {
  const at::Tensor actor = mat({{0.5, 0.25, 0.9}, {0.8, 0.1, 0.1}}).log();
  const at::Tensor rollout = mat({{0.4, 0.25, 0.01}, {0.6, 0.9, 0.5}}).log();
  const at::Tensor mask = mat({{1, 1, 0}, {1, 0, 0}});
  const Metrics m = rollout_probs_diff_metrics(rollout, actor, mask);
  EXPECT_EQ(m.at("training/rollout_probs_diff_valid"), 1.0);
  EXPECT_NEAR(m.at("training/rollout_probs_diff_max"), 0.2, 1e-12);
  EXPECT_NEAR(m.at("training/rollout_probs_diff_mean"), 0.1, 1e-12);
  EXPECT_NEAR(m.at("training/rollout_probs_diff_std"), 0.1, 1e-12);
  EXPECT_NEAR(m.at("training/rollout_actor_probs_pearson_corr"),
              (29.0 / 300.0) / std::sqrt(91.0 * 37.0 / (600.0 * 600.0)), 1e-12);
}

TEST(RolloutProbsDiff, NoResponseTokenIsInvalid) {
  const at::Tensor lp = mat({{-1.0, -2.0}});
  const Metrics m = rollout_probs_diff_metrics(lp, lp, mat({{0, 0}}));
  EXPECT_EQ(m.at("training/rollout_probs_diff_valid"), 0.0);
  EXPECT_TRUE(std::isnan(m.at("training/rollout_probs_diff_max")));
  EXPECT_TRUE(std::isnan(m.at("training/rollout_actor_probs_pearson_corr")));
  EXPECT_THROW(rollout_probs_diff_metrics(lp, mat({{-1.0}}), mat({{1, 1}})), Error);
}

}  // namespace
}  // namespace verlpp::algo
