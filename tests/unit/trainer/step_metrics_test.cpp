#include "verlpp/trainer/step_metrics.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>

namespace verlpp::trainer {
namespace {

at::Tensor rows(std::vector<std::vector<double>> values) {
  std::vector<double> flat;
  for (const auto& row : values) flat.insert(flat.end(), row.begin(), row.end());
  return at::tensor(flat, at::kDouble).reshape({static_cast<long>(values.size()), -1});
}

// Three rows, prompt length P = 3, response length R = 3. Row 2 is aborted (empty response).
StepBatch hand_batch() {
  StepBatch b;
  b.attention_mask = rows({{0, 1, 1, 1, 1, 0}, {1, 1, 1, 1, 1, 1}, {0, 0, 1, 0, 0, 0}});
  b.response_mask = rows({{1, 1, 0}, {1, 1, 1}, {0, 0, 0}});
  b.token_level_scores = rows({{0, 1, 0}, {0, 0, 0}, {0, 0, 5}});
  b.token_level_rewards = rows({{0, 0.5, 0}, {0, 0, -1}, {0, 0, 5}});
  b.advantages = rows({{1, 2, 100}, {-1, -1, -1}, {100, 100, 100}});
  b.returns = rows({{2, 2, 9}, {0, 0, 1}, {9, 9, 9}});
  b.max_prompt_length = 3;
  b.max_response_length = 3;
  return b;
}

TEST(StepMetrics, DataMetricsByHand) {
  const Metrics m = compute_data_metrics(hand_batch());
  // Scores of non-aborted rows: 1 and 0 (row 2's 5 is excluded).
  EXPECT_DOUBLE_EQ(m.at("critic/score/mean"), 0.5);
  EXPECT_DOUBLE_EQ(m.at("critic/score/max"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("critic/rewards/min"), -1.0);
  // Masked advantages: 1, 2, -1, -1, -1.
  EXPECT_DOUBLE_EQ(m.at("critic/advantages/mean"), 0.0);
  EXPECT_DOUBLE_EQ(m.at("critic/advantages/max"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("critic/returns/mean"), 5.0 / 5.0);
  // Response lengths 2, 3, 0; prompt lengths 2, 3, 1.
  EXPECT_DOUBLE_EQ(m.at("response_length/mean"), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.at("response_length/clip_ratio"), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.at("response_length_non_aborted/mean"), 2.5);
  EXPECT_DOUBLE_EQ(m.at("response_length_non_aborted/clip_ratio"), 0.5);
  EXPECT_DOUBLE_EQ(m.at("response/aborted_ratio"), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.at("prompt_length/mean"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("prompt_length/min"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("prompt_length/clip_ratio"), 1.0 / 3.0);
  EXPECT_FALSE(m.count("critic/vf_explained_var"));
}

TEST(StepMetrics, ExplainedVarianceUsesUnbiasedVariances) {
  StepBatch b = hand_batch();
  b.values = rows({{1, 2, 0}, {0, 1, 1}, {0, 0, 0}});
  const Metrics m = compute_data_metrics(b);
  // Masked returns 2, 2, 0, 0, 1 (mean 1, unbiased var 4/4 = 1); values 1, 2, 0, 1, 1;
  // R − V = 1, 0, 0, −1, 0 (mean 0, unbiased var 2/4 = 0.5) → 1 − 0.5 / (1 + 1e-5).
  EXPECT_NEAR(m.at("critic/vf_explained_var"), 1.0 - 0.5 / (1.0 + 1e-5), 1e-12);
  EXPECT_DOUBLE_EQ(m.at("critic/values/mean"), 1.0);
}

TEST(StepMetrics, AllAbortedGivesNaNScores) {
  StepBatch b = hand_batch();
  b.attention_mask = rows({{0, 1, 1, 0, 0, 0}, {1, 1, 1, 0, 0, 0}, {0, 0, 1, 0, 0, 0}});
  b.response_mask = at::zeros({3, 3}, at::kDouble);
  const Metrics m = compute_data_metrics(b);
  EXPECT_TRUE(std::isnan(m.at("critic/score/mean")));
  EXPECT_TRUE(std::isnan(m.at("critic/advantages/mean")));
  EXPECT_DOUBLE_EQ(m.at("response/aborted_ratio"), 1.0);
}

TEST(StepMetrics, TimingAndThroughput) {
  const StepBatch b = hand_batch();  // 5 response tokens, 6 prompt tokens
  const Metrics timing =
      compute_timing_metrics(b, {{"gen", 2.0}, {"update_actor", 1.1}, {"step", 4.0}});
  EXPECT_DOUBLE_EQ(timing.at("timing_s/gen"), 2.0);
  EXPECT_DOUBLE_EQ(timing.at("timing_per_token_ms/gen"), 400.0);
  EXPECT_DOUBLE_EQ(timing.at("timing_per_token_ms/update_actor"), 100.0);
  EXPECT_FALSE(timing.count("timing_per_token_ms/step"));
  const Metrics perf = compute_throughput_metrics(b, {{"step", 4.0}}, 2);
  EXPECT_DOUBLE_EQ(perf.at("perf/total_num_tokens"), 11.0);
  EXPECT_DOUBLE_EQ(perf.at("perf/throughput"), 11.0 / 8.0);
}

}  // namespace
}  // namespace verlpp::trainer
