// Hand-worked advantage estimators (verl.md §3.1), including a group of one response, a group
// whose rewards are all equal, an empty (fully masked) response and masked interior tokens.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algo_test_util.h"
#include "verlpp/algo/advantage.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

using testing::expect_near;
using testing::ids;
using testing::mat;
using testing::vec;

// Whitened results carry masked_mean's 1e-8 denominators (~1e-8 relative), hence 1e-7 there.
// Six responses of length <= 3 with outcome rewards at the last valid token.
//   group 7 (rows 0, 1, 2): scores 1, 0, 0; row 1 is empty (mask all 0), row 2 has 2 tokens
//   group 3 (rows 3, 4):    scores 1, 1 (all equal)
//   group 5 (row 5):        score 2 (a group of one)
struct Batch {
  at::Tensor rewards = mat({{0, 0, 1}, {0, 0, 0}, {0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 2, 0}});
  at::Tensor mask = mat({{1, 1, 1}, {0, 0, 0}, {1, 1, 0}, {1, 1, 0}, {1, 0, 0}, {1, 1, 0}});
  at::Tensor index = ids({7, 7, 7, 3, 3, 5});
};

// Expected per-sequence advantages broadcast with the batch's mask.
at::Tensor outcome(const std::vector<double>& a, const at::Tensor& mask) {
  return vec(a).unsqueeze(-1) * mask;
}

const double kStd7 = std::sqrt(1.0 / 3.0);  // scores 1, 0, 0: deviations 2/3, -1/3, -1/3

TEST(AlgoAdvantage, Grpo) {
  Batch b;
  const auto r = compute_grpo_outcome_advantage(b.rewards, b.mask, b.index);
  const double hi = (2.0 / 3.0) / (kStd7 + 1e-6);
  const double lo = (-1.0 / 3.0) / (kStd7 + 1e-6);
  expect_near(r.advantages, outcome({hi, lo, lo, 0, 0, 2 / (1 + 1e-6)}, b.mask), 1e-12, "grpo");
  expect_near(r.returns, r.advantages, 0, "returns");
}

TEST(AlgoAdvantage, DrGrpoWithoutStd) {
  Batch b;
  const auto r = compute_grpo_outcome_advantage(b.rewards, b.mask, b.index, false);
  expect_near(r.advantages, outcome({2.0 / 3, -1.0 / 3, -1.0 / 3, 0, 0, 2}, b.mask), 1e-12,
              "dr grpo");
}

TEST(AlgoAdvantage, GrpoVectorizedAndRegistryAgree) {
  Batch b;
  AdvantageInputs in;
  in.token_level_rewards = b.rewards;
  in.response_mask = b.mask;
  in.index = b.index;
  const auto direct = compute_grpo_outcome_advantage(b.rewards, b.mask, b.index);
  expect_near(compute_advantage("grpo", in).advantages, direct.advantages, 0, "grpo");
  expect_near(compute_advantage("grpo_vectorized", in).advantages, direct.advantages, 1e-12,
              "grpo_vectorized");
}

TEST(AlgoAdvantage, GrpoPasskOnlyTheBestGetsTheMargin) {
  Batch b;
  const at::Tensor rewards = b.rewards.narrow(0, 0, 5);
  const at::Tensor mask = b.mask.narrow(0, 0, 5);
  const at::Tensor index = b.index.narrow(0, 0, 5);
  const auto norm = compute_grpo_passk_outcome_advantage(rewards, mask, index);
  // group 7: best 1, second 0 -> 1/(std + eps); group 3: tie -> 0.
  expect_near(norm.advantages, outcome({1 / (kStd7 + 1e-6), 0, 0, 0, 0}, mask), 1e-12, "passk");
  const auto raw = compute_grpo_passk_outcome_advantage(rewards, mask, index, false);
  expect_near(raw.advantages, outcome({1, 0, 0, 0, 0}, mask), 0, "passk without std");
}

TEST(AlgoAdvantage, GrpoPasskRejectsAGroupOfOne) {
  Batch b;
  EXPECT_THROW(compute_grpo_passk_outcome_advantage(b.rewards, b.mask, b.index), Error);
}

TEST(AlgoAdvantage, Rloo) {
  Batch b;
  // group 7: s_i minus the mean of the others: 1 - 0, 0 - 0.5, 0 - 0.5; group 3: 0; singleton 2.
  const auto r = compute_rloo_outcome_advantage(b.rewards, b.mask, b.index);
  expect_near(r.advantages, outcome({1, -0.5, -0.5, 0, 0, 2}, b.mask), 1e-12, "rloo");
  const auto v = compute_rloo_vectorized_outcome_advantage(b.rewards, b.mask, b.index);
  expect_near(v.advantages, outcome({1, -0.5, -0.5, 0, 0, 0}, b.mask), 1e-12, "rloo_vectorized");
}

TEST(AlgoAdvantage, OpoLengthWeightedBaseline) {
  Batch b;
  // group 7: lengths 3, 0, 2 -> b = (3*1 + 0 + 2*0)/5 = 0.6; group 3: b = 1; singleton: b = 0.
  const auto r = compute_opo_outcome_advantage(b.rewards, b.mask, b.index);
  expect_near(r.advantages, outcome({0.4, -0.6, -0.6, 0, 0, 2}, b.mask), 1e-12, "opo");
}

TEST(AlgoAdvantage, OpoGroupOfEmptyResponsesIsZeroNotNaN) {
  const auto r =
      compute_opo_outcome_advantage(mat({{0, 0}, {0, 0}}), mat({{0, 0}, {0, 0}}), ids({1, 1}));
  expect_near(r.advantages, {{0, 0}, {0, 0}}, 0, "opo empty");
}

TEST(AlgoAdvantage, Gpg) {
  Batch b;
  // scores 1,0,0,1,1,2: 4 non-zero of 6 -> alpha 1.5; group means 1/3, 1, 0 (singleton).
  const auto r = compute_gpg_outcome_advantage(b.rewards, b.mask, b.index);
  expect_near(r.advantages, outcome({1, -0.5, -0.5, 0, 0, 3}, b.mask), 1e-12, "gpg");
}

TEST(AlgoAdvantage, ReinforcePlusPlusBaseline) {
  // One group of three one-token responses, scores 1, 0, 3 (row 2 masked): group mean 4/3, so
  // the tokens are -1/3, -4/3, 0; whitened over the two unmasked ones: mean -5/6, deviations
  // +-0.5, unbiased var 0.5.
  const auto r = compute_reinforce_plus_plus_baseline_outcome_advantage(
      mat({{1}, {0}, {3}}), mat({{1}, {1}, {0}}), ids({4, 4, 4}));
  const double s = std::sqrt(0.5 + 1e-8);
  expect_near(r.advantages, {{0.5 / s}, {-0.5 / s}, {0}}, 1e-7, "rpp baseline");
}

TEST(AlgoAdvantage, ReinforcePlusPlusCarriesMaskedTokens) {
  // gamma 0.5. Row 0: rewards 0, 0, 1 -> G = 0.25, 0.5, 1. Row 1: the masked middle token's
  // reward 7 is skipped and G carried: G_2 = 2, G_1 = 2 (returns 0 there), G_0 = 1 + 0.5*2 = 2.
  const at::Tensor mask = mat({{1, 1, 1}, {1, 0, 1}});
  const auto r =
      compute_reinforce_plus_plus_outcome_advantage(mat({{0, 0, 1}, {1, 7, 2}}), mask, 0.5);
  expect_near(r.returns, {{0.25, 0.5, 1}, {2, 0, 2}}, 1e-12, "returns");
  // Whitening over 0.25, 0.5, 1, 2, 2: mean 1.15, squared deviations sum 2.7, unbiased var 0.675.
  const double s = std::sqrt(0.675 + 1e-8);
  expect_near(r.advantages, {{-0.9 / s, -0.65 / s, -0.15 / s}, {0.85 / s, 0, 0.85 / s}}, 1e-7,
              "advantages");
}

TEST(AlgoAdvantage, GaeWithMaskedInteriorToken) {
  // gamma 0.9, lam 0.8; the middle token is masked (e.g. tool output):
  //   t=2: delta = 1 - 0.2 = 0.8, A = 0.8
  //   t=1: delta = 5 + 0.9*0.2 - 9 = -3.82, A = -3.82 + 0.72*0.8 = -3.244 (carry 0.2 / 0.8 on)
  //   t=0: delta = 0.9*0.2 - 0.5 = -0.32, A = -0.32 + 0.72*0.8 = 0.256
  const auto r = compute_gae_advantage_return(mat({{0, 5, 1}}), mat({{0.5, 9, 0.2}}),
                                              mat({{1, 0, 1}}), 0.9, 0.8);
  expect_near(r.returns, {{0.756, 5.756, 1.0}}, 1e-12, "returns");
  // whitened with the two unmasked values 0.256, 0.8: mean 0.528, unbiased var 2*0.272^2.
  const double s = std::sqrt(2 * 0.272 * 0.272 + 1e-8);
  expect_near(r.advantages, {{-0.272 / s, (-3.244 - 0.528) / s, 0.272 / s}}, 1e-7, "advantages");
}

TEST(AlgoAdvantage, GaeUndiscounted) {
  // t=1: delta = 1 - 0.2 = 0.8; t=0: delta = 0.2 - 0.5 = -0.3, A = 0.5. returns = A + V = 1, 1.
  const auto r = compute_gae_advantage_return(mat({{0, 1}, {0, 0}}), mat({{0.5, 0.2}, {3, 4}}),
                                              mat({{1, 1}, {0, 0}}), 1.0, 1.0);
  expect_near(r.returns.narrow(0, 0, 1), {{1, 1}}, 1e-12, "returns");
}

TEST(AlgoAdvantage, Remax) {
  const auto r = compute_remax_outcome_advantage(mat({{0, 1, 2}}), vec({0.5}), mat({{1, 1, 0}}));
  expect_near(r.returns, {{1, 1, 0}}, 0, "returns");
  expect_near(r.advantages, {{0.5, 0.5, 0}}, 0, "advantages");
}

TEST(AlgoAdvantage, ZeroLengthResponses) {
  const at::Tensor empty = at::zeros({3, 0}, at::kDouble);
  const auto r = compute_grpo_outcome_advantage(empty, empty, ids({0, 0, 1}));
  EXPECT_EQ(r.advantages.sizes(), empty.sizes());
  // Whitening needs at least 2 unmasked tokens, as in verl.
  EXPECT_THROW(compute_reinforce_plus_plus_outcome_advantage(empty, empty, 1.0), Error);
  EXPECT_THROW(compute_gae_advantage_return(empty, empty, empty, 1.0, 1.0), Error);
}

TEST(AlgoAdvantage, RegistryListsValidNames) {
  Batch b;
  AdvantageInputs in;
  in.token_level_rewards = b.rewards;
  in.response_mask = b.mask;
  in.index = b.index;
  try {
    compute_advantage("grp0", in);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("algorithm.adv_estimator"), std::string::npos) << what;
    EXPECT_NE(what.find("grpo, grpo_passk"), std::string::npos) << what;
  }
  EXPECT_EQ(advantage_estimators().names().size(), 14u);
}

// gdpo on one prompt's two responses: acc [1, 0], format [0, 1]. Per reward GRPO: mean 0.5,
// unbiased std sqrt(0.5): A_acc = +-0.5/(0.70711 + 1e-6) = +-0.70711, A_format the opposite.
// Weights [1, 0.5]: A = [0.35355, -0.35355]; whitened over the batch (mean 0, unbiased variance
// 0.25): [0.70711, -0.70711]. With equal weights the two cancel: all 0.
TEST(AlgoAdvantage, GdpoNormalisesEachRewardApart) {
  AdvantageInputs in;
  in.token_level_rewards = mat({{0}, {0}});
  in.response_mask = mat({{1}, {1}});
  in.index = ids({3, 3});
  in.reward_values = {{"acc", vec({1, 0})}, {"format", vec({0, 1})}};
  AdvantageConfig c;
  c.gdpo_reward_keys = {"acc", "format"};
  c.gdpo_reward_weights = {1.0, 0.5};
  const double a = 0.5 / (std::sqrt(0.5) + 1e-6) * 0.5;  // the weighted sum before whitening
  const double whitened = a / std::sqrt(2 * a * a + 1e-8);
  testing::expect_near(compute_advantage("gdpo", in, c).advantages, mat({{whitened}, {-whitened}}),
                       1e-8, "weighted");
  c.gdpo_reward_weights = {};
  testing::expect_near(compute_advantage("gdpo", in, c).advantages, mat({{0}, {0}}), 1e-9, "equal");
  c.gdpo_reward_keys = {"acc", "length"};
  try {
    compute_advantage("gdpo", in, c);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no value 'length' (it gives: acc, format)"),
              std::string::npos)
        << e.what();
  }
  c.gdpo_reward_keys = {};
  EXPECT_THROW(compute_advantage("gdpo", in, c), Error);
}

TEST(AlgoAdvantage, MissingInputsAreErrors) {
  Batch b;
  const auto inputs = [&](at::Tensor mask, at::Tensor index, at::Tensor baselines) {
    AdvantageInputs in;
    in.token_level_rewards = b.rewards;
    in.response_mask = std::move(mask);
    in.index = std::move(index);
    in.reward_baselines = std::move(baselines);
    return in;
  };
  EXPECT_THROW(compute_advantage("grpo", inputs(b.mask, {}, {})), Error);
  EXPECT_THROW(compute_advantage("gae", inputs(b.mask, {}, {})), Error);
  EXPECT_THROW(compute_advantage("remax", inputs(b.mask, {}, vec({1, 2}))), Error);
  EXPECT_THROW(compute_advantage("rloo", inputs(b.mask.narrow(1, 0, 2), b.index, {})), Error);
  EXPECT_THROW(compute_advantage("optimal_token_baseline", inputs(b.mask, b.index, {})), Error);
}

}  // namespace
}  // namespace verlpp::algo
