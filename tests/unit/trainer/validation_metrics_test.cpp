#include "verlpp/trainer/validation_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace verlpp::trainer {
namespace {

ValidationSample sample(const std::string& uid, double reward,
                        std::optional<std::string> pred = {}) {
  return {"openai/gsm8k", uid, {{"reward", reward}}, std::move(pred)};
}

TEST(ValidationMetrics, BestAndWorstOfTwoDrawsFromZeroAndOne) {
  // max of 2 draws from {0, 1}: P(0) = 1/4, P(1) = 3/4 → mean 0.75, std sqrt(0.75 − 0.5625).
  const auto [best_mean, best_std] = best_of_n({0.0, 1.0}, 2, true);
  EXPECT_DOUBLE_EQ(best_mean, 0.75);
  EXPECT_DOUBLE_EQ(best_std, std::sqrt(0.1875));
  const auto [worst_mean, worst_std] = best_of_n({1.0, 0.0}, 2, false);
  EXPECT_DOUBLE_EQ(worst_mean, 0.25);
  EXPECT_DOUBLE_EQ(worst_std, std::sqrt(0.1875));
}

TEST(ValidationMetrics, HandWorkedGroupsAndVerlKeyNames) {
  std::vector<ValidationSample> samples;
  for (double r : {1.0, 0.0, 1.0, 1.0}) samples.push_back(sample("a", r));
  for (int i = 0; i < 4; ++i) samples.push_back(sample("b", 0.0));
  const Metrics m = validation_metrics(samples);
  // mean@4: (0.75 + 0) / 2; best@4: (1 − (1/4)^4 + 0) / 2; best@2: (1 − (1/4)^2 + 0) / 2.
  EXPECT_DOUBLE_EQ(m.at("val-core/openai/gsm8k/reward/mean@4"), 0.375);
  EXPECT_DOUBLE_EQ(m.at("val-core/openai/gsm8k/reward/best@4/mean"), 255.0 / 256.0 / 2.0);
  EXPECT_DOUBLE_EQ(m.at("val-aux/openai/gsm8k/reward/best@2/mean"), 15.0 / 16.0 / 2.0);
  EXPECT_DOUBLE_EQ(m.at("val-aux/openai/gsm8k/reward/std@4"), std::sqrt(0.75 * 0.25) / 2.0);
  EXPECT_TRUE(m.count("val-aux/openai/gsm8k/reward/worst@4/mean"));
  EXPECT_FALSE(m.count("val-core/openai/gsm8k/reward/worst@4/mean"));
  EXPECT_FALSE(m.count("val-aux/openai/gsm8k/reward/maj@4/mean"));  // no predictions
}

TEST(ValidationMetrics, OneResponsePerPromptGivesMeanAtOne) {
  const Metrics m = validation_metrics({sample("a", 1.0), sample("b", 0.0), sample("c", 1.0)});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_DOUBLE_EQ(m.at("val-core/openai/gsm8k/reward/mean@1"), 2.0 / 3.0);
}

TEST(ValidationMetrics, AccIsTheCoreVariableWhenPresent) {
  const Metrics m = validation_metrics({{"ds", "a", {{"reward", 0.5}, {"acc", 1.0}}, {}},
                                        {"ds", "b", {{"reward", 0.1}, {"acc", 0.0}}, {}}});
  EXPECT_DOUBLE_EQ(m.at("val-core/ds/acc/mean@1"), 0.5);
  EXPECT_DOUBLE_EQ(m.at("val-aux/ds/reward/mean@1"), 0.3);
}

TEST(ValidationMetrics, MajorityVoteTiesGoToTheFirstSeenPrediction) {
  // Two responses: pred A (1.0), pred B (0.0). Draws of 2: AA→1, BB→0, AB→tie→A→1, BA→B→0, so the
  // expected maj@2 is 0.5; 1,000 draws put the estimate within 4 standard errors (4 × 0.5/√1000).
  // As in verl, maj@N/std also counts as a val-core key (it starts with "maj" and has @N).
  const Metrics m = validation_metrics({sample("a", 1.0, "A"), sample("a", 0.0, "B")});
  EXPECT_NEAR(m.at("val-core/openai/gsm8k/reward/maj@2/mean"), 0.5, 0.064);
  const Metrics unanimous = validation_metrics({sample("a", 1.0, "7"), sample("a", 1.0, "7")});
  EXPECT_DOUBLE_EQ(unanimous.at("val-core/openai/gsm8k/reward/maj@2/mean"), 1.0);
  EXPECT_DOUBLE_EQ(unanimous.at("val-core/openai/gsm8k/reward/maj@2/std"), 0.0);
}

}  // namespace
}  // namespace verlpp::trainer
