// Choosing a scorer for a row: by data_source (verl/utils/reward_score/__init__.py::
// default_compute_score) or a custom shared-library function (reward.custom_reward_function).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "verlpp/reward/custom_reward.h"
#include "verlpp/reward/score.h"

namespace verlpp::reward {

// verl's default_compute_score for the data sources verlpp implements:
//   "openai/gsm8k" -> gsm8k_score (strict, format_score 0);
//   "lighteval/MATH", "DigitalLearningGmbH/MATH-lighteval", "HuggingFaceH4/MATH-500" -> math_score;
//   "verlpp/arithmetic" (the built-in demo task) -> arithmetic_score.
// Throws verlpp::Error for any other data_source, naming it, the supported ones, and
// reward.custom_reward_function as the way to score it. `extra_info` is unused by these scorers.
ScoreResult default_compute_score(std::string_view data_source, std::string_view solution_str,
                                  std::string_view ground_truth, const nlohmann::json& extra_info,
                                  const RuleOptions& options = {});

// reward.custom_reward_function.{path,name} plus the rule options.
struct ScorerConfig {
  std::string custom_path;                    // empty: default_compute_score
  std::string custom_name = "compute_score";  // verl's default
  RuleOptions rules;
};

// The compute_score a reward manager calls: the custom function when configured, otherwise
// default_compute_score.
class Scorer {
 public:
  explicit Scorer(const ScorerConfig& config);
  ScoreResult operator()(std::string_view data_source, std::string_view solution_str,
                         std::string_view ground_truth, const nlohmann::json& extra_info) const;

 private:
  RuleOptions rules_;
  std::shared_ptr<CustomRewardFunction> custom_;
};

}  // namespace verlpp::reward
