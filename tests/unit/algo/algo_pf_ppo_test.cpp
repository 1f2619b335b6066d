// PF-PPO's weights (algo/pf_ppo.h) worked by hand from verl's compute_pf_ppo_reweight_data, and
// its draws: with replacement, in proportion to the weights, the same for the same seed.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "verlpp/algo/pf_ppo.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"

namespace verlpp::algo {
namespace {

TEST(PfPpo, WeightsByHand) {
  const at::Tensor s = at::tensor({0.0, 1.0, -2.0, 1.0}, at::kDouble);
  // pow 2: |s|^2 + 1e-8.
  EXPECT_TRUE(at::allclose(pf_ppo_weights(s, "pow", 2.0),
                           at::tensor({1e-8, 1.0 + 1e-8, 4.0 + 1e-8, 1.0 + 1e-8}, at::kDouble), 0.0,
                           1e-15));
  // max_min: the largest (1, twice) and the smallest (-2) get 1.
  EXPECT_TRUE(at::allclose(pf_ppo_weights(s, "max_min", 2.0),
                           at::tensor({1e-8, 1.0 + 1e-8, 1.0 + 1e-8, 1.0 + 1e-8}, at::kDouble), 0.0,
                           1e-15));
  // max_random: 0.4 for the largest, 0.1 for the others.
  EXPECT_TRUE(at::allclose(pf_ppo_weights(s, "max_random", 2.0),
                           at::tensor({0.1, 0.4, 0.1, 0.4}, at::kDouble) + 1e-8, 0.0, 1e-15));
  try {
    pf_ppo_weights(s, "softmax", 2.0);
    FAIL() << "an unknown method was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("algorithm.pf_ppo.reweight_method"), std::string::npos);
  }
}

TEST(PfPpo, DrawsFollowTheWeightsAndTheSeed) {
  // Rows 0 and 1 weigh 1e-8 against 9 and 16: over 4,000 draws they are (almost surely) never
  // drawn; rows 2 and 3 come in about 9 : 16.
  const at::Tensor scores = at::tensor({0.0, 0.0, 3.0, 4.0}, at::kDouble);
  const at::Tensor many = scores.repeat({1000});
  const at::Tensor rows = pf_ppo_sample(many, "pow", 2.0, make_generator(at::kCPU, 7));
  ASSERT_EQ(rows.size(0), 4000);
  const at::Tensor kind = at::remainder(rows, 4);
  EXPECT_EQ(kind.lt(2).sum().item<int64_t>(), 0);
  const double share3 = kind.eq(3).to(at::kDouble).mean().item<double>();
  EXPECT_NEAR(share3, 16.0 / 25.0, 0.03);
  EXPECT_TRUE(at::equal(rows, pf_ppo_sample(many, "pow", 2.0, make_generator(at::kCPU, 7))));
  EXPECT_FALSE(at::equal(rows, pf_ppo_sample(many, "pow", 2.0, make_generator(at::kCPU, 8))));
}

}  // namespace
}  // namespace verlpp::algo
