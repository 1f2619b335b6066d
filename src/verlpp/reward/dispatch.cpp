#include "verlpp/reward/dispatch.h"

#include <fmt/format.h>

#include <array>

#include "verlpp/core/error.h"
#include "verlpp/reward/arithmetic.h"
#include "verlpp/reward/geo3k.h"
#include "verlpp/reward/gsm8k.h"
#include "verlpp/reward/math_reward.h"

namespace verlpp::reward {
namespace {

constexpr std::array<std::string_view, 3> kMathSources = {
    "lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500"};

bool is_math_source(std::string_view data_source) {
  for (auto source : kMathSources) {
    if (source == data_source) return true;
  }
  return false;
}

}  // namespace

ScoreResult default_compute_score(std::string_view data_source, std::string_view solution_str,
                                  std::string_view ground_truth, const nlohmann::json& /*extra*/,
                                  const RuleOptions& options) {
  if (data_source == "openai/gsm8k") return gsm8k_score(solution_str, ground_truth, options);
  if (is_math_source(data_source)) return math_score(solution_str, ground_truth);
  if (data_source == kArithmeticDataSource) return arithmetic_score(solution_str, ground_truth);
  if (data_source == kGeo3kDataSource) return geo3k_score(solution_str, ground_truth);
  throw Error(fmt::format(
      "no reward function for data_source '{}': verlpp's built-in scorers cover openai/gsm8k, "
      "lighteval/MATH, DigitalLearningGmbH/MATH-lighteval, HuggingFaceH4/MATH-500, "
      "hiyouga/geometry3k and verlpp/arithmetic; "
      "for others "
      "set reward.custom_reward_function.path to a shared library (see "
      "src/verlpp/reward/verlpp_reward_abi.h)",
      data_source));
}

Scorer::Scorer(const ScorerConfig& config) : rules_(config.rules) {
  if (!config.custom_path.empty()) {
    custom_ = std::make_shared<CustomRewardFunction>(config.custom_path, config.custom_name);
  }
}

ScoreResult Scorer::operator()(std::string_view data_source, std::string_view solution_str,
                               std::string_view ground_truth,
                               const nlohmann::json& extra_info) const {
  if (custom_) return (*custom_)(data_source, solution_str, ground_truth, extra_info);
  return default_compute_score(data_source, solution_str, ground_truth, extra_info, rules_);
}

}  // namespace verlpp::reward
