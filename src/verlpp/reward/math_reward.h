// Hendrycks MATH rule scorer (verl/utils/reward_score/math_reward.py, adapted there from
// lm-evaluation-harness hendrycks_math). Strings are UTF-8; "characters" below are code points,
// as in Python.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "verlpp/reward/score.h"

namespace verlpp::reward {

// The last "\boxed{...}" (or "\fbox{...}") with its braces matched, e.g. "\boxed{\frac{1}{2}}".
// verl's special case: when "\boxed " (with a space) occurs anywhere, returns "\boxed " followed by
// the text after the last "\boxed " up to the next "$". nullopt when there is no box or its braces
// never close.
std::optional<std::string> last_boxed_only_string(std::string_view text);

// The content of a "\boxed{...}" or "\boxed ..." string; nullopt when `boxed` has neither form
// (verl raises, and compute_score then scores 0).
std::optional<std::string> remove_boxed(std::string_view boxed);

// verl's strip_string normalisation: drops "\n", "\!", "\left", "\right", degrees, "\$", units
// after
// "\text{ ", "\%"; "\\" -> "\", tfrac/dfrac -> frac; ".5" -> "0.5"; drops a "k=" prefix whose
// left side has at most 2 characters; "\sqrt3" -> "\sqrt{3}"; removes spaces; "\frac12" ->
// "\frac{1}{2}"; "0.5" -> "\frac{1}{2}"; "a/b" of canonical integers -> "\frac{a}{b}".
// nullopt where Python's version raises (then is_equiv compares the raw strings).
std::optional<std::string> strip_string(std::string_view text);

// verl's is_equiv: strip_string of both equal; when either normalisation fails, raw equality.
bool is_equiv(std::string_view a, std::string_view b);

// verl's math_reward.compute_score: 1.0 when the last boxed answer is_equiv the ground truth, else
// 0.0. `extracted` is the boxed content.
ScoreResult math_score(std::string_view response, std::string_view ground_truth);

}  // namespace verlpp::reward
