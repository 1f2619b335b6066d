// GSM8K rule scorer (verl/utils/reward_score/gsm8k.py).
//
// verl's extraction (RuleOptions::verl_compat = true), exactly:
//   * only the last 300 characters (Unicode code points) of the response are searched;
//   * strict:   re.findall(r"#### (\-?[0-9\.\,]+)"), last match, "," and "$" removed;
//   * flexible: re.findall(r"(\-?[0-9\.\,]+)"), last match that is not "" or "." (commas kept);
//   * the extracted string is compared to the ground truth as a string.
// It mis-scores correct answers: "#### 72." extracts "72." (trailing period), "#### $72" matches
// nothing, a "####" answer more than 300 characters before the end is not seen, and flexible keeps
// thousands separators ("1,080" != "1080").
//
// verlpp's default extraction fixes these:
//   * the whole response is searched;
//   * strict: the last "####" followed by whitespace (verl's format: "####42" has no answer), an
//     optional "$" and a number
//     (optional "-" before or after the "$", then digits, "." and ","), containing at least one
//     digit;
//   * flexible: the last number (optional "-", digits, "." and ",") containing a digit;
//   * numbers are normalised: trailing "." and "," dropped, "," removed, and after a decimal point
//     trailing zeros dropped ("72.00" -> "72"); the ground truth is normalised the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "verlpp/reward/score.h"

namespace verlpp::reward {

enum class Gsm8kMethod { strict, flexible };

// The answer extracted from `response`, or nullopt when there is none.
std::optional<std::string> gsm8k_extract(std::string_view response, Gsm8kMethod method,
                                         const RuleOptions& options = {});

// verl's gsm8k.compute_score: no answer -> 0; answer equal to `ground_truth` -> `score`; otherwise
// `format_score`.
ScoreResult gsm8k_score(std::string_view response, std::string_view ground_truth,
                        const RuleOptions& options = {}, Gsm8kMethod method = Gsm8kMethod::strict,
                        double format_score = 0.0, double score = 1.0);

// The last `count` Unicode code points of UTF-8 `text` (all of it when shorter), as Python's
// text[-count:] on the decoded string.
std::string_view last_code_points(std::string_view text, std::size_t count);

}  // namespace verlpp::reward
