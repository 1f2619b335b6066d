// Rollout correction, the bypass-mode losses and the optimal token baseline on hand-worked
// cases (the seeded float64 cases are in algo_fixture_test.cpp), and the settings' errors.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algo_test_util.h"
#include "verlpp/algo/optimal_token_baseline.h"
#include "verlpp/algo/policy_loss.h"
#include "verlpp/algo/rollout_correction.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

using testing::mat;
using testing::vec;

// old (training) [-1, -2] against rollout [-1.5, -1]: log-ratios [0.5, -1], token IS weights
// [e^0.5, e^-1] = [1.64872, 0.36788].
const at::Tensor& training() {
  static const at::Tensor t = mat({{-1.0, -2.0}});
  return t;
}
const at::Tensor& rollout() {
  static const at::Tensor t = mat({{-1.5, -1.0}});
  return t;
}

std::string error_of(const RolloutCorrectionConfig& c) {
  try {
    validate_rollout_correction(c);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(RolloutCorrection, TokenWeightsAreTruncatedAndReported) {
  RolloutCorrectionConfig c;
  c.rollout_is = "token";
  c.rollout_is_threshold = 1.5;
  const auto r = compute_rollout_correction(training(), rollout(), mat({{1, 1}}), c);
  testing::expect_near(r.rollout_is_weights, mat({{1.5, std::exp(-1.0)}}), 1e-12, "weights");
  const double e = std::exp(0.5), f = std::exp(-1.0);
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_is_mean"), (e + f) / (2 + 1e-8), 1e-12);
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_is_max"), e, 1e-12);
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_is_min"), f, 1e-12);
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_is_ratio_fraction_high"), 0.5, 1e-8);
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_is_ratio_fraction_low"), 0.5, 1e-8);
  // Off-policy: kl = mean(rollout - training) = (-0.5 + 1) / 2.
  EXPECT_NEAR(r.metrics.at("rollout_corr/kl"), 0.25, 1e-8);
  testing::expect_near(r.response_mask, mat({{1, 1}}), 0.0, "mask untouched without rollout_rs");
}

TEST(RolloutCorrection, SequenceWeightsMultiplyTheTokenRatios) {
  RolloutCorrectionConfig c;
  c.rollout_is = "sequence";
  c.rollout_is_threshold = 5.0;
  // exp(0.5 - 1) = 0.60653 for both tokens of the row.
  const auto r = compute_rollout_correction(training(), rollout(), mat({{1, 1}}), c);
  testing::expect_near(r.rollout_is_weights, mat({{std::exp(-0.5), std::exp(-0.5)}}), 1e-12, "w");
}

TEST(RolloutCorrection, TokenK1RejectsRatiosOutsideItsBounds) {
  RolloutCorrectionConfig c;
  c.rollout_rs = "token_k1";
  c.rollout_rs_threshold = "0.5_1.5";
  // k1 = -log-ratio = [-0.5, 1]: log 0.5 <= -0.5 <= log 1.5 is kept, 1 > log 1.5 is rejected.
  const auto r = compute_rollout_correction(training(), rollout(), mat({{1, 1}}), c);
  testing::expect_near(r.response_mask, mat({{1, 0}}), 0.0, "mask");
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_rs_token_k1_masked_fraction"), 0.5, 1e-8);
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_rs_seq_masked_fraction"), 1.0, 1e-12);
  EXPECT_FALSE(r.rollout_is_weights.defined());
}

TEST(RolloutCorrection, ThresholdsParseAsVerlDoes) {
  const auto one = parse_rejection_options("token_k1", std::string("2"));
  ASSERT_EQ(one.size(), 1U);
  EXPECT_DOUBLE_EQ(*one[0].lower, 0.5);  // a single k1 bound: lower = 1 / upper
  EXPECT_DOUBLE_EQ(one[0].upper, 2.0);
  const auto two = parse_rejection_options("seq_mean_k3, token_k1,seq_mean_k3", std::string("0.1"));
  ASSERT_EQ(two.size(), 2U);  // duplicates dropped, one threshold shared
  EXPECT_FALSE(two[0].lower.has_value());
  EXPECT_DOUBLE_EQ(two[1].upper, 0.1);
}

TEST(RolloutCorrection, BadSettingsNameTheirKey) {
  RolloutCorrectionConfig c;
  c.rollout_is = "tokens";
  EXPECT_NE(error_of(c).find("algorithm.rollout_correction.rollout_is: unknown value 'tokens'"),
            std::string::npos);
  c = {};
  c.rollout_is_threshold = 0.0;
  EXPECT_NE(error_of(c).find("rollout_is_threshold: must be a positive number"), std::string::npos);
  c = {};
  c.rollout_rs = "token_k4";
  c.rollout_rs_threshold = "1";
  EXPECT_NE(error_of(c).find("rollout_rs: unknown option 'token_k4'"), std::string::npos);
  c.rollout_rs = "token_k2";
  c.rollout_rs_threshold.reset();
  EXPECT_NE(error_of(c).find("rollout_rs_threshold: needed"), std::string::npos);
  c.rollout_rs_threshold = "0.5_2";
  EXPECT_NE(error_of(c).find("takes one upper bound"), std::string::npos);
  c.rollout_rs = "token_k1,seq_sum_k2,seq_max_k3";
  c.rollout_rs_threshold = "2,3";
  EXPECT_NE(error_of(c).find("2 thresholds for 3 rollout_rs options"), std::string::npos);
  c.rollout_rs = "token_k3";
  c.rollout_rs_threshold = "-1";
  EXPECT_NE(error_of(c).find("must be > 0"), std::string::npos);
  c.rollout_rs_threshold = "abc";
  EXPECT_NE(error_of(c).find("'abc' for option token_k3 is not a number"), std::string::npos);
  c = {};
  c.loss_type = "reinforce++";
  EXPECT_NE(error_of(c).find("loss_type: unknown value 'reinforce++'"), std::string::npos);
  EXPECT_THROW(compute_rollout_correction(training(), rollout(), mat({{0, 0}}), {}), Error);
}

// bypass_mode, loss_type reinforce, token IS truncated at 1.5: old (= rollout) [-1.5, -1],
// log_prob [-1, -2], A [2, -1]: w = [1.5, e^-1]; per token -A*log_prob*w = [3, -2e^-1], their
// mean (3 - 2e^-1) / 2; d/dlog_prob = -A*w/2 = [-1.5, e^-1/2]; ppo_kl = mean(old - log_prob) =
// 0.25.
TEST(BypassMode, ReinforceWithTokenWeights) {
  PolicyLossInputs in;
  in.old_log_prob = rollout();
  in.log_prob = training().clone().set_requires_grad(true);
  in.advantages = mat({{2, -1}});
  in.response_mask = mat({{1, 1}});
  PolicyLossConfig c;
  c.rollout_correction.loss_type = "reinforce";
  c.rollout_correction.rollout_is = "token";
  c.rollout_correction.rollout_is_threshold = 1.5;
  const auto r = compute_policy_loss("bypass_mode", in, c);
  const double f = std::exp(-1.0);
  EXPECT_NEAR(r.loss.item<double>(), (3 - 2 * f) / (2 + 1e-8), 1e-8);
  EXPECT_NEAR(r.metrics.at("ppo_kl"), 0.25, 1e-8);
  EXPECT_NEAR(r.metrics.at("rollout_corr/rollout_is_max"), std::exp(0.5), 1e-12);
  r.loss.backward();
  testing::expect_near(in.log_prob.grad(), mat({{-1.5, f / 2}}), 1e-7, "grad");
}

// bypass_mode, loss_type ppo_clip with token_k1 rejection: the rejected second token leaves the
// loss; the first is vanilla PPO with ratio e^0.5 clipped at 1.2 for A = 2: loss = -2*1.2 on
// the one kept token (token-mean over the kept mask), no gradient.
TEST(BypassMode, PpoClipUsesTheRejectionMaskAndNoWeights) {
  PolicyLossInputs in;
  in.old_log_prob = rollout();
  in.log_prob = training().clone().set_requires_grad(true);
  in.advantages = mat({{2, -1}});
  in.response_mask = mat({{1, 1}});
  PolicyLossConfig c;
  c.rollout_correction.rollout_is = "token";
  c.rollout_correction.rollout_rs = "token_k1";
  c.rollout_correction.rollout_rs_threshold = "0.5_1.5";
  const auto r = compute_policy_loss("bypass_mode", in, c);
  EXPECT_NEAR(r.loss.item<double>(), -2.4, 1e-12);
  EXPECT_NEAR(r.metrics.at("pg_clipfrac"), 1.0, 1e-7);
  r.loss.backward();
  testing::expect_near(in.log_prob.grad(), mat({{0, 0}}), 1e-12, "grad");
}

// Two responses of one prompt: row 0 of length 3 with reward 1 at its end, row 1 of length 1
// with reward 2; pi = 0.5 and sum pi^2 = 0.5 everywhere, so w = 1 - 1 + 0.5 = 0.5,
// W = [0.5, 1, 1.5] and [0.5, 0.5, 0.5]; G = [1, 1, 1] and [2, 0, 0]. Baselines:
// t0 (1*0.5 + 2*0.5)/(0.5 + 0.5) = 1.5, t1 1*1/1 = 1, t2 1.5/1.5 = 1. A row 0 = [-0.5, 0, 0],
// row 1 = [0.5, 0, 0]; with the zero tail (row 0 alone is longest, the second-longest is 1) row
// 0's baseline from position 1 on is 0: [-0.5, 1, 1]. A third row alone in its group keeps G.
OptimalTokenBaselineInputs two_responses() {
  OptimalTokenBaselineInputs in;
  in.token_level_rewards = mat({{0, 0, 1}, {2, 0, 0}, {0, 3, 0}});
  in.response_mask = mat({{1, 1, 1}, {1, 0, 0}, {1, 1, 0}});
  in.index = testing::ids({7, 7, 9});
  in.old_log_probs = at::full({3, 3}, std::log(0.5), at::kDouble);
  in.sum_pi_squared = at::full({3, 3}, 0.5, at::kDouble);
  return in;
}

TEST(OptimalTokenBaseline, HandWorkedGroup) {
  const auto otb = compute_optimal_token_baseline_advantage(two_responses());
  testing::expect_near(otb.advantages, mat({{-0.5, 0, 0}, {0.5, 0, 0}, {3, 3, 0}}), 1e-7, "otb");
  testing::expect_near(otb.returns, mat({{1, 1, 1}, {2, 0, 0}, {3, 3, 0}}), 1e-12, "returns");
  const auto tir = compute_multi_turn_optimal_token_baseline_advantage(two_responses());
  testing::expect_near(tir.advantages, mat({{-0.5, 1, 1}, {0.5, 0, 0}, {3, 3, 0}}), 1e-7, "tir");
  const auto otb_tail = compute_optimal_token_baseline_advantage(two_responses(), true);
  testing::expect_near(otb_tail.advantages, tir.advantages, 1e-12, "zero tail");
}

TEST(OptimalTokenBaseline, NeedsSumPiSquared) {
  OptimalTokenBaselineInputs in = two_responses();
  in.sum_pi_squared = at::Tensor();
  try {
    compute_optimal_token_baseline_advantage(in);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("calculate_sum_pi_squared=true"), std::string::npos);
  }
}

}  // namespace
}  // namespace verlpp::algo
