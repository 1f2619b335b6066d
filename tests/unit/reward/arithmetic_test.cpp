#include "verlpp/reward/arithmetic.h"

#include <gtest/gtest.h>

#include "verlpp/reward/dispatch.h"

namespace verlpp::reward {
namespace {

TEST(Arithmetic, LastIntegerOfTheResponse) {
  EXPECT_EQ(last_integer("522"), "522");
  EXPECT_EQ(last_integer("37+485=522"), "522");
  EXPECT_EQ(last_integer("the sum is -12."), "-12");
  EXPECT_EQ(last_integer("0042 then 007"), "7");
  EXPECT_EQ(last_integer("000"), "0");
  EXPECT_EQ(last_integer("-0"), "0");
  EXPECT_EQ(last_integer("no digits"), std::nullopt);
  EXPECT_EQ(last_integer(""), std::nullopt);
}

TEST(Arithmetic, ExactMatchOfTheFinalNumber) {
  EXPECT_EQ(arithmetic_score("522", "522").score, 1.0);
  EXPECT_EQ(arithmetic_score("52", "522").score, 0.0);
  EXPECT_EQ(arithmetic_score("5220", "522").score, 0.0);
  EXPECT_EQ(arithmetic_score("100 then 522", "522").score, 1.0);
  EXPECT_EQ(arithmetic_score("522 then 100", "522").score, 0.0);
  const ScoreResult none = arithmetic_score("", "522");
  EXPECT_EQ(none.score, 0.0);
  EXPECT_EQ(none.extracted, std::nullopt);
}

TEST(Arithmetic, DispatchedByDataSource) {
  EXPECT_EQ(default_compute_score("verlpp/arithmetic", "1035", "1035", {}).score, 1.0);
  EXPECT_EQ(default_compute_score("verlpp/arithmetic", "1036", "1035", {}).score, 0.0);
}

}  // namespace
}  // namespace verlpp::reward
