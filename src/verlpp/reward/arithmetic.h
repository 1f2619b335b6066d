// Scorer of verlpp's built-in demo task (data_source "verlpp/arithmetic", see demo/): the response
// is right when the last integer in it equals the ground truth.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "verlpp/reward/score.h"

namespace verlpp::reward {

inline constexpr std::string_view kArithmeticDataSource = "verlpp/arithmetic";

// The last integer in `response` (an optional "-" directly before a run of ASCII digits), with
// leading zeros dropped ("-007" -> "-7", "000" -> "0"); nullopt when the response has no digit.
std::optional<std::string> last_integer(std::string_view response);

// 1.0 when last_integer(response) equals last_integer(ground_truth), else 0.0 (also when the
// response has no number). `extracted` is the response's last integer.
ScoreResult arithmetic_score(std::string_view response, std::string_view ground_truth);

}  // namespace verlpp::reward
