// Hand-worked checks of masked_sum/mean/var/whiten (verl.md §3.0) and of group handling.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "algo_test_util.h"
#include "verlpp/algo/groups.h"
#include "verlpp/algo/masked.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

using testing::expect_near;
using testing::ids;
using testing::item;
using testing::mat;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Selected values 1, 2, 5, 6: sum 14, mean 3.5, squared deviations 6.25+2.25+2.25+6.25 = 17.
at::Tensor values() { return mat({{1, 2, kNaN}, {kNaN, 5, 6}}); }
at::Tensor mask() { return mat({{1, 1, 0}, {0, 1, 1}}); }

TEST(AlgoMasked, SumAndMeanIgnoreMaskedNaN) {
  EXPECT_DOUBLE_EQ(item(masked_sum(values(), mask())), 14.0);
  EXPECT_NEAR(item(masked_mean(values(), mask())), 14.0 / (4 + 1e-8), 1e-15);
  expect_near(masked_mean(values(), mask(), -1), testing::vec({3 / (2 + 1e-8), 11 / (2 + 1e-8)}),
              1e-14, "row means");
}

TEST(AlgoMasked, BoolMaskEqualsFloatMask) {
  EXPECT_DOUBLE_EQ(item(masked_sum(values(), mask().to(at::kBool))), 14.0);
}

TEST(AlgoMasked, AllMaskedMeanIsZero) {
  EXPECT_EQ(item(masked_mean(values(), at::zeros({2, 3}, at::kDouble))), 0.0);
}

// The 1e-8 in masked_mean's denominators moves these statistics by ~1e-8 relative; the
// tolerances below allow for it.
TEST(AlgoMasked, UnbiasedVariance) {
  EXPECT_NEAR(item(masked_var(values(), mask())), 17.0 / 3.0, 1e-7);
  EXPECT_NEAR(item(masked_var(values(), mask(), false)), 17.0 / 4.0, 1e-7);
}

TEST(AlgoMasked, VarianceNeedsTwoElements) {
  EXPECT_THROW(masked_var(values(), mat({{1, 0, 0}, {0, 0, 0}})), Error);
  EXPECT_THROW(masked_var(values(), at::zeros({2, 3}, at::kDouble)), Error);
}

TEST(AlgoMasked, WhitenUsesMaskedStatisticsEverywhere) {
  const at::Tensor v = mat({{1, 2, 10}, {0, 5, 6}});
  const double s = std::sqrt(17.0 / 3.0 + 1e-8);
  expect_near(masked_whiten(v, mask()),
              {{-2.5 / s, -1.5 / s, 6.5 / s}, {-3.5 / s, 1.5 / s, 2.5 / s}}, 1e-7, "whiten");
  expect_near(masked_whiten(v, mask(), false),
              {{-2.5 / s + 3.5, -1.5 / s + 3.5, 6.5 / s + 3.5},
               {-3.5 / s + 3.5, 1.5 / s + 3.5, 2.5 / s + 3.5}},
              1e-7, "whiten without shift");
}

TEST(AlgoMasked, ShapeMismatchIsAnError) {
  EXPECT_THROW(masked_sum(values(), mat({{1, 1}})), Error);
}

TEST(AlgoGroups, UidsNumberedByFirstAppearance) {
  const at::Tensor g = group_index_from_uids({"b7", "a1", "b7", "c3", "a1"});
  expect_near(g, ids({0, 1, 0, 2, 1}), 0, "group ids");
}

TEST(AlgoGroups, MeanAndStdWithSingletons) {
  // groups {0: 1, 4, 7}, {5: 2}, {9: 3, 3}; the index values and order are arbitrary.
  const Groups g = make_groups(ids({0, 9, 0, 5, 9, 0}), 6, "test");
  EXPECT_EQ(g.count, 3);
  const at::Tensor x = testing::vec({1, 3, 4, 2, 3, 7});
  expect_near(group_mean(x, g), testing::vec({4, 3, 4, 0, 3, 4}), 1e-15, "mean");
  // {1,4,7}: squared deviations 9+0+9 over n-1 = 2 -> std 3; {3,3}: 0; singleton: 1.
  expect_near(group_std(x, g), testing::vec({3, 0, 3, 1, 0, 3}), 1e-15, "std");
  expect_near(group_sum(x, g), testing::vec({12, 6, 12, 2, 6, 12}), 1e-15, "sum");
}

TEST(AlgoGroups, IndexMustMatchTheBatch) {
  EXPECT_THROW(make_groups(ids({0, 1}), 3, "test"), Error);
  EXPECT_THROW(make_groups(testing::vec({0, 1, 2}), 3, "test"), Error);
  EXPECT_THROW(make_groups(at::Tensor(), 3, "test"), Error);
}

}  // namespace
}  // namespace verlpp::algo
