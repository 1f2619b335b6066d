#include "verlpp/reward/geo3k.h"

#include "verlpp/reward/mathruler.h"

namespace verlpp::reward {

double geo3k_format_reward(std::string_view response) {
  constexpr std::string_view kOpen = "<think>", kClose = "</think>", kBoxed = "\\boxed{";
  if (!response.starts_with(kOpen)) return 0.0;
  const std::size_t close = response.find(kClose, kOpen.size());
  if (close == std::string_view::npos) return 0.0;
  const std::size_t boxed = response.find(kBoxed, close + kClose.size());
  if (boxed == std::string_view::npos) return 0.0;
  return response.find('}', boxed + kBoxed.size()) == std::string_view::npos ? 0.0 : 1.0;
}

double geo3k_acc_reward(std::string_view response, std::string_view ground_truth, bool use_boxed) {
  const std::string answer = use_boxed ? extract_boxed_content(response) : std::string(response);
  return grade_answer(answer, ground_truth) ? 1.0 : 0.0;
}

ScoreResult geo3k_score(std::string_view response, std::string_view ground_truth, bool use_boxed,
                        double format_score) {
  ScoreResult result;
  const double acc = geo3k_acc_reward(response, ground_truth, use_boxed);
  const double format = geo3k_format_reward(response);
  result.score = (1.0 - format_score) * acc + format_score * format;
  if (const std::string boxed = extract_boxed_content(response); boxed != "None") {
    result.extracted = boxed;
  }
  return result;
}

}  // namespace verlpp::reward
