// GSM8K scorer. Expected values are worked by hand from verl's gsm8k.py regexes
// (#### (\-?[0-9\.\,]+) and (\-?[0-9\.\,]+), last 300 code points) and from verlpp's documented
// corrections (gsm8k.h).
#include "verlpp/reward/gsm8k.h"

#include <gtest/gtest.h>

#include <string>

namespace verlpp::reward {
namespace {

const RuleOptions kVerl{.verl_compat = true};
const RuleOptions kVerlpp{};

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(Gsm8k, PlainAnswerBothModes) {
  const std::string response = "48/2 = 24 clips in May.\n48+24 = 72\n#### 72";
  for (const auto& options : {kVerl, kVerlpp}) {
    const auto result = gsm8k_score(response, "72", options);
    EXPECT_EQ(result.score, 1.0);
    EXPECT_EQ(result.extracted, "72");
  }
}

TEST(Gsm8k, TrailingPeriodIsMisScoredByVerlOnly) {
  EXPECT_EQ(gsm8k_score("So the answer is #### 72.", "72", kVerl).extracted, "72.");
  EXPECT_EQ(gsm8k_score("So the answer is #### 72.", "72", kVerl).score, 0.0);
  EXPECT_EQ(gsm8k_score("So the answer is #### 72.", "72", kVerlpp).extracted, "72");
  EXPECT_EQ(gsm8k_score("So the answer is #### 72.", "72", kVerlpp).score, 1.0);
}

TEST(Gsm8k, TrailingCommaAndThousandsSeparators) {
  EXPECT_EQ(gsm8k_extract("#### 1,080", Gsm8kMethod::strict, kVerl), "1080");
  EXPECT_EQ(gsm8k_extract("#### 1,080", Gsm8kMethod::strict, kVerlpp), "1080");
  EXPECT_EQ(gsm8k_extract("#### 850,000, which is a lot", Gsm8kMethod::strict, kVerlpp), "850000");
  EXPECT_EQ(gsm8k_score("#### 1,080", "1080", kVerl).score, 1.0);
}

TEST(Gsm8k, DollarSign) {
  // verl's strict regex needs a digit or '-' right after "#### ": "$18" matches nothing.
  EXPECT_EQ(gsm8k_extract("#### $18", Gsm8kMethod::strict, kVerl), std::nullopt);
  EXPECT_EQ(gsm8k_score("#### $18", "18", kVerl).score, 0.0);
  EXPECT_EQ(gsm8k_extract("#### $18", Gsm8kMethod::strict, kVerlpp), "18");
  EXPECT_EQ(gsm8k_extract("#### -$18", Gsm8kMethod::strict, kVerlpp), "-18");
  EXPECT_EQ(gsm8k_extract("#### \n$1,250.", Gsm8kMethod::strict, kVerlpp), "1250");
  // verl's format needs whitespace after the marker; without it there is no answer (score 0) in
  // both modes.
  for (const char* response : {"####42", "####$1,250."}) {
    EXPECT_EQ(gsm8k_extract(response, Gsm8kMethod::strict, kVerl), std::nullopt) << response;
    EXPECT_EQ(gsm8k_extract(response, Gsm8kMethod::strict, kVerlpp), std::nullopt) << response;
    EXPECT_EQ(gsm8k_score(response, "42", kVerlpp).score, 0.0) << response;
  }
}

TEST(Gsm8k, NegativeNumbers) {
  EXPECT_EQ(gsm8k_score("It fell by 7 degrees.\n#### -7", "-7", kVerl).score, 1.0);
  EXPECT_EQ(gsm8k_score("#### -47", "-47", kVerlpp).score, 1.0);
  EXPECT_EQ(gsm8k_score("#### -47", "47", kVerlpp).score, 0.0);
  EXPECT_EQ(gsm8k_extract("from -3 to -5", Gsm8kMethod::flexible, kVerl), "-5");
}

TEST(Gsm8k, SeveralMarkersTakeTheLast) {
  const std::string response = "#### 5\nWait, I made a mistake.\n#### 7";
  EXPECT_EQ(gsm8k_extract(response, Gsm8kMethod::strict, kVerl), "7");
  EXPECT_EQ(gsm8k_extract(response, Gsm8kMethod::strict, kVerlpp), "7");
  // A marker without a number after it does not hide the earlier answer.
  EXPECT_EQ(gsm8k_extract("#### 12\nThat is all. ####", Gsm8kMethod::strict, kVerlpp), "12");
  // "#####" (five) still reads as a marker.
  EXPECT_EQ(gsm8k_extract("##### 9", Gsm8kMethod::strict, kVerl), "9");
  EXPECT_EQ(gsm8k_extract("##### 9", Gsm8kMethod::strict, kVerlpp), "9");
}

TEST(Gsm8k, AnswerFarFromTheEnd) {
  const std::string response = "#### 42\n" + repeat("Let me double check that once more. ", 12);
  ASSERT_GT(response.size(), 400u);
  EXPECT_EQ(gsm8k_score(response, "42", kVerl).extracted, std::nullopt);
  EXPECT_EQ(gsm8k_score(response, "42", kVerl).score, 0.0);
  EXPECT_EQ(gsm8k_score(response, "42", kVerlpp).score, 1.0);
}

TEST(Gsm8k, VerlClipCountsCodePointsNotBytes) {
  // "#### 42" is 7 code points; with 293 two-byte "é" after it the last 300 code points hold the
  // whole marker, with 296 only "# 42".
  EXPECT_EQ(gsm8k_extract("#### 42" + repeat("é", 293), Gsm8kMethod::strict, kVerl), "42");
  EXPECT_EQ(gsm8k_extract("#### 42" + repeat("é", 296), Gsm8kMethod::strict, kVerl), std::nullopt);
  EXPECT_EQ(last_code_points("aé€b", 2), "€b");
  EXPECT_EQ(last_code_points("ab", 5), "ab");
  EXPECT_EQ(last_code_points("ab", 0), "");
}

TEST(Gsm8k, TrailingZeros) {
  EXPECT_EQ(gsm8k_score("#### 72.00", "72", kVerl).score, 0.0);
  EXPECT_EQ(gsm8k_score("#### 72.00", "72", kVerlpp).score, 1.0);
  EXPECT_EQ(gsm8k_score("#### 2.50", "2.5", kVerlpp).score, 1.0);
  EXPECT_EQ(gsm8k_score("#### 250", "25", kVerlpp).score, 0.0);
}

TEST(Gsm8k, Flexible) {
  // re.findall gives ["3", "1,000."]: verl keeps the comma and the period.
  const std::string response = "I have 3 apples and 1,000.";
  EXPECT_EQ(gsm8k_extract(response, Gsm8kMethod::flexible, kVerl), "1,000.");
  EXPECT_EQ(gsm8k_extract(response, Gsm8kMethod::flexible, kVerlpp), "1000");
  // Only "." matches: verl's loop ends on the first match, ".".
  EXPECT_EQ(gsm8k_extract("Hi. Bye.", Gsm8kMethod::flexible, kVerl), ".");
  EXPECT_EQ(gsm8k_extract("Hi. Bye.", Gsm8kMethod::flexible, kVerlpp), std::nullopt);
  EXPECT_EQ(gsm8k_extract("no numbers", Gsm8kMethod::flexible, kVerl), std::nullopt);
}

TEST(Gsm8k, FormatScoreOnlyWhenAnAnswerWasFound) {
  EXPECT_EQ(gsm8k_score("#### 71", "72", kVerl, Gsm8kMethod::strict, 0.1).score, 0.1);
  EXPECT_EQ(gsm8k_score("seventy-two", "72", kVerl, Gsm8kMethod::strict, 0.1).score, 0.0);
  EXPECT_EQ(gsm8k_score("#### 72", "72", kVerlpp, Gsm8kMethod::strict, 0.1, 2.0).score, 2.0);
}

}  // namespace
}  // namespace verlpp::reward
