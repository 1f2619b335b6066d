// Scorer of verl's geo3k data (data_source "hiyouga/geometry3k"; verl/utils/reward_score/geo3k.py):
//   format = 1 when the whole response matches <think>.*</think>.*\boxed\{.*\}.* (dot matching
//            newlines: it starts with "<think>", and "</think>", "\boxed{" and "}" follow in order)
//   acc    = 1 when mathruler's grade_answer(extract_boxed_content(response), ground_truth)
//            (mathruler.h; with use_boxed false the whole response is graded)
//   score  = (1 - format_score) acc + format_score format, format_score 0.1 by default: 0, 0.1,
//            0.9 or 1.
#pragma once

#include <string_view>

#include "verlpp/reward/score.h"

namespace verlpp::reward {

inline constexpr std::string_view kGeo3kDataSource = "hiyouga/geometry3k";

double geo3k_format_reward(std::string_view response);
double geo3k_acc_reward(std::string_view response, std::string_view ground_truth,
                        bool use_boxed = true);

// `extracted` is the boxed content (nullopt when there is none). verl's scorer returns a bare
// float, so no extra values (the reward manager records the score as "acc").
ScoreResult geo3k_score(std::string_view response, std::string_view ground_truth,
                        bool use_boxed = true, double format_score = 0.1);

}  // namespace verlpp::reward
