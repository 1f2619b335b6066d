// Hand-worked KL penalties and clamps (verl.md §3.2), straight-through gradients, KL controllers
// and in-reward KL (§3.7), and loss aggregation with global-batch normalisation (§3.4).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "algo_test_util.h"
#include "verlpp/algo/agg_loss.h"
#include "verlpp/algo/kl_controller.h"
#include "verlpp/algo/kl_penalty.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

using testing::expect_near;
using testing::item;
using testing::mat;
using testing::vec;

TEST(AlgoKl, Estimators) {
  const at::Tensor lp = vec({-1.0});
  const at::Tensor ref = vec({-2.0});
  EXPECT_DOUBLE_EQ(item(kl_penalty(lp, ref, "kl")), 1.0);
  EXPECT_DOUBLE_EQ(item(kl_penalty(lp, ref, "k1")), 1.0);
  EXPECT_DOUBLE_EQ(item(kl_penalty(ref, lp, "abs")), 1.0);
  EXPECT_DOUBLE_EQ(item(kl_penalty(lp, ref, "mse")), 0.5);
  EXPECT_DOUBLE_EQ(item(kl_penalty(lp, ref, "k2")), 0.5);
  // x = ref - lp = -1: exp(-1) + 1 - 1.
  EXPECT_NEAR(item(kl_penalty(lp, ref, "low_var_kl")), std::exp(-1.0), 1e-15);
  EXPECT_NEAR(item(kl_penalty(lp, ref, "k3")), std::exp(-1.0), 1e-15);
}

TEST(AlgoKl, K3Clamps) {
  // ref - lp = 25 -> x clamped to 20 -> exp(20) - 21 -> clamped to 10; -25 -> e^-20 + 19 -> 10;
  // ref - lp = 2 -> e^2 - 3 = 4.389 (inside both clamps).
  const at::Tensor v = kl_penalty(vec({-30, -1, -3}), vec({-5, -26, -1}), "k3");
  expect_near(v, vec({10, 10, std::exp(2.0) - 3}), 1e-12, "k3");
}

TEST(AlgoKl, StraightThroughUsesK2Gradient) {
  const at::Tensor ref = vec({-3.0});
  for (const std::string name : {"k1", "abs", "k3", "low_var_kl", "kl"}) {
    at::Tensor lp = vec({-1.0}).set_requires_grad(true);
    const at::Tensor plain = kl_penalty(lp, ref, name);
    at::Tensor lp2 = vec({-1.0}).set_requires_grad(true);
    const at::Tensor st = kl_penalty(lp2, ref, name + "+");
    EXPECT_DOUBLE_EQ(item(st), item(plain)) << name;
    st.sum().backward();
    EXPECT_DOUBLE_EQ(item(lp2.grad()), 2.0) << name;  // d/dlp 0.5*(lp - ref)^2 = lp - ref
  }
  at::Tensor lp = vec({-1.0}).set_requires_grad(true);
  kl_penalty(lp, ref, "k3").sum().backward();
  EXPECT_NEAR(item(lp.grad()), 1 - std::exp(-2.0), 1e-15);  // -(e^x - 1), x = -2
}

TEST(AlgoKl, UnknownAndFullAreErrors) {
  EXPECT_THROW(kl_penalty(vec({0}), vec({0}), "full"), Error);
  try {
    kl_penalty(vec({0}), vec({0}), "k4");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("low_var_kl"), std::string::npos) << e.what();
  }
}

TEST(AlgoKlController, AdaptiveAndFixed) {
  AdaptiveKLController c(0.2, 0.1, 1000);
  c.update(0.3, 64);  // error clipped to 0.2
  EXPECT_NEAR(c.value(), 0.2 * (1 + 0.2 * 64 / 1000.0), 1e-15);
  c.update(0.05, 64);  // error -0.5 clipped to -0.2
  EXPECT_NEAR(c.value(), 0.2 * (1 + 0.0128) * (1 - 0.0128), 1e-15);
  c.update(0.11, 10);  // error 0.1
  EXPECT_NEAR(c.value(), 0.2 * (1 + 0.0128) * (1 - 0.0128) * (1 + 0.001), 1e-15);
  auto fixed = make_kl_controller({"fixed", 0.05, 10000, 0.1});
  fixed->update(5.0, 1000);
  EXPECT_EQ(fixed->value(), 0.05);
  EXPECT_THROW(make_kl_controller({"pid", 0.05, 10000, 0.1}), Error);
  EXPECT_THROW(AdaptiveKLController(0.1, 0.1, 0), Error);
}

TEST(AlgoKlController, KlInReward) {
  FixedKLController c(0.1);
  // kl = old - ref = 1, 0.5 on row 0; row 1 is empty.
  const auto r = apply_kl_penalty(mat({{0, 1}, {0, 0}}), mat({{-1, -1}, {-1, -1}}),
                                  mat({{-2, -1.5}, {-9, -9}}), mat({{1, 1}, {0, 0}}), c, "kl");
  expect_near(r.token_level_rewards, {{-0.1, 0.95}, {0, 0}}, 1e-12, "rewards");
  // per-sequence means 0.75 and 0 (empty row), averaged over the 2 sequences.
  EXPECT_NEAR(r.current_kl, 0.375, 1e-8);
  EXPECT_EQ(r.metrics.at("actor/reward_kl_penalty_coeff"), 0.1);
}

// L = 1..9; row 0 has 2 tokens, row 1 one, row 2 none.
at::Tensor loss_mat() { return mat({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}); }
at::Tensor loss_mask() { return mat({{1, 1, 0}, {1, 0, 0}, {0, 0, 0}}); }

TEST(AlgoAgg, LocalCounts) {
  const auto agg = [](const std::string& mode) {
    return item(agg_loss(loss_mat(), loss_mask(), mode));
  };
  EXPECT_NEAR(agg("token-mean"), 7.0 / 3, 1e-15);
  EXPECT_NEAR(agg("token-sum"), 7.0, 1e-15);
  EXPECT_NEAR(agg("seq-mean-token-sum"), (3.0 + 4.0) / 2, 1e-15);  // the empty row is not counted
  EXPECT_NEAR(agg("seq-mean-token-mean"), (3 / (2 + 1e-8) + 4 / (1 + 1e-8)) / 2, 1e-15);
  EXPECT_NEAR(agg("seq-mean-token-sum-norm"), 3.5 / 3, 1e-15);  // / response_length
}

TEST(AlgoAgg, GlobalCounts) {
  GlobalBatchInfo info;
  info.dp_size = 2;
  info.batch_num_tokens = 10;
  info.global_batch_size = 4;
  info.loss_scale_factor = 2;
  const auto agg = [&](const std::string& mode) {
    return item(agg_loss(loss_mat(), loss_mask(), mode, info));
  };
  EXPECT_NEAR(agg("token-mean"), 7.0 / 10 * 2, 1e-15);
  EXPECT_NEAR(agg("token-sum"), 14.0, 1e-15);
  EXPECT_NEAR(agg("seq-mean-token-sum"), 7.0 / 4 * 2, 1e-15);
  EXPECT_NEAR(agg("seq-mean-token-sum-norm"), 7.0 / 4 * 2 / 2, 1e-15);
}

TEST(AlgoAgg, MicroBatchesWithGlobalCountsSumToTheWholeBatch) {
  const at::Tensor l = mat({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {-1, 0.5, 2}});
  const at::Tensor m = mat({{1, 1, 0}, {1, 0, 0}, {0, 0, 0}, {1, 1, 1}});
  for (const auto& mode : loss_agg_mode_names()) {
    GlobalBatchInfo info;
    info.batch_num_tokens = 6;   // all unmasked tokens of the 4 rows
    info.global_batch_size = 3;  // non-empty rows
    const double parts = item(agg_loss(l.narrow(0, 0, 2), m.narrow(0, 0, 2), mode, info)) +
                         item(agg_loss(l.narrow(0, 2, 2), m.narrow(0, 2, 2), mode, info));
    EXPECT_NEAR(parts, item(agg_loss(l, m, mode)), 1e-12) << mode;
  }
}

TEST(AlgoAgg, EmptyBatchIsZero) {
  for (const auto& mode : loss_agg_mode_names()) {
    EXPECT_EQ(item(agg_loss(loss_mat(), at::zeros({3, 3}, at::kDouble), mode)), 0.0) << mode;
  }
}

TEST(AlgoAgg, ZeroLengthResponses) {
  const at::Tensor empty = at::zeros({2, 0}, at::kDouble);
  for (const auto& mode : loss_agg_mode_names()) {
    EXPECT_EQ(item(agg_loss(empty, empty, mode)), 0.0) << mode;
  }
}

TEST(AlgoAgg, Errors) {
  EXPECT_THROW(agg_loss(loss_mat(), loss_mask(), "token-means"), Error);
  GlobalBatchInfo dp2;
  dp2.dp_size = 2;
  EXPECT_THROW(agg_loss(loss_mat(), loss_mask(), "token-mean", dp2), Error);
  EXPECT_THROW(agg_loss(loss_mat(), loss_mask(), "seq-mean-token-mean", dp2), Error);
  EXPECT_THROW(agg_loss(loss_mat(), mat({{1, 1}}), "token-mean"), Error);
}

}  // namespace
}  // namespace verlpp::algo
