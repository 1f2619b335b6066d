// MATH scorer. Expected values worked by hand from verl's math_reward.py (last_boxed_only_string,
// remove_boxed, strip_string, is_equiv).
#include "verlpp/reward/math_reward.h"

#include <gtest/gtest.h>

namespace verlpp::reward {
namespace {

TEST(MathReward, BoxedFractionEqualsDecimalHalf) {
  const auto result = math_score("The probability is $\\boxed{\\frac{1}{2}}$.", "0.5");
  EXPECT_EQ(result.extracted, "\\frac{1}{2}");
  EXPECT_EQ(result.score, 1.0);
}

TEST(MathReward, DfracAndShorthandFrac) {
  EXPECT_EQ(math_score("\\boxed{\\dfrac{1}{2}}", "\\frac12").score, 1.0);
  EXPECT_EQ(math_score("\\boxed{\\tfrac{3}{4}}", "3/4").score, 1.0);
  EXPECT_EQ(math_score("\\boxed{\\frac{1}{3}}", "0.5").score, 0.0);
}

TEST(MathReward, NestedBracesAndLastBox) {
  EXPECT_EQ(last_boxed_only_string("so \\boxed{\\frac{\\sqrt{3}}{2}} done"),
            "\\boxed{\\frac{\\sqrt{3}}{2}}");
  EXPECT_EQ(math_score("so \\boxed{\\frac{\\sqrt{3}}{2}} done", "\\frac{\\sqrt3}{2}").score, 1.0);
  EXPECT_EQ(math_score("first \\boxed{1}, then \\boxed{2}", "2").extracted, "2");
  EXPECT_EQ(last_boxed_only_string("\\boxed{3"), std::nullopt);
  EXPECT_EQ(last_boxed_only_string("no box"), std::nullopt);
}

TEST(MathReward, BoxedWithSpaceAndFbox) {
  EXPECT_EQ(last_boxed_only_string("answer: $\\boxed 5$."), "\\boxed 5");
  EXPECT_EQ(math_score("answer: $\\boxed 5$.", "5").score, 1.0);
  // \fbox is found but remove_boxed only accepts \boxed (verl raises; score 0).
  EXPECT_EQ(last_boxed_only_string("\\fbox{3}"), "\\fbox{3}");
  EXPECT_EQ(math_score("\\fbox{3}", "3").score, 0.0);
  EXPECT_EQ(math_score("\\fbox{3}", "3").extracted, std::nullopt);
}

TEST(MathReward, StripString) {
  EXPECT_EQ(strip_string("10\\%"), "10");
  EXPECT_EQ(strip_string("\\left( 1, 2 \\right)"), "(1,2)");
  EXPECT_EQ(strip_string("x = 5"), "5");
  EXPECT_EQ(strip_string("xyz = 5"), "xyz=5");
  EXPECT_EQ(strip_string(".5"), "\\frac{1}{2}");
  EXPECT_EQ(strip_string("\\sqrt3"), "\\sqrt{3}");
  EXPECT_EQ(strip_string("5 \\text{ cm}"), "5");
  EXPECT_EQ(strip_string("90^\\circ"), "90");
  EXPECT_EQ(strip_string("\\$10"), "10");
  EXPECT_EQ(strip_string("3/4"), "\\frac{3}{4}");
  EXPECT_EQ(strip_string("03/4"), "03/4");        // int("03") is 3: "3/4" != "03/4", kept
  EXPECT_EQ(strip_string("x/4"), "x/4");          // int("x") fails, kept
  EXPECT_EQ(strip_string("\\frac1"), "\\frac1");  // too short after \frac: returned unchanged
  EXPECT_EQ(strip_string("\\frac1{72}"), "\\frac{1}{72}");
}

TEST(MathReward, NormalisationFailureFallsBackToRawEquality) {
  // Two "\text{ " units: verl's assert fails and is_equiv compares the raw strings.
  EXPECT_EQ(strip_string("1\\text{ a}\\text{ b}"), std::nullopt);
  EXPECT_TRUE(is_equiv("1\\text{ a}\\text{ b}", "1\\text{ a}\\text{ b}"));
  EXPECT_FALSE(is_equiv("1\\text{ a}\\text{ b}", "1"));
  // "\frac" with nothing after it: Python's substr[0] raises IndexError.
  EXPECT_EQ(strip_string("2\\frac"), std::nullopt);
}

}  // namespace
}  // namespace verlpp::reward
