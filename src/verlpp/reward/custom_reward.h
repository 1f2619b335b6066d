// Custom reward functions loaded from a shared library through the C ABI in verlpp_reward_abi.h
// (verl: reward.custom_reward_function.{path,name}, which there names a Python file).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "verlpp/reward/score.h"
#include "verlpp/reward/verlpp_reward_abi.h"

namespace verlpp::reward {

class CustomRewardFunction {
 public:
  // Loads `name` (or `name`_named, preferred when both exist) from the shared library at `path`.
  // Throws verlpp::Error naming the config key when the file cannot be loaded (a .py file gets a
  // hint that verlpp loads shared libraries), when neither symbol exists, or when
  // verlpp_reward_abi_version() returns another version.
  CustomRewardFunction(const std::string& path, const std::string& name);
  ~CustomRewardFunction();
  CustomRewardFunction(const CustomRewardFunction&) = delete;
  CustomRewardFunction& operator=(const CustomRewardFunction&) = delete;

  // Calls the function; `extracted` stays empty (the ABI returns no answer text). A named
  // function's values all go to `extra` ("score" included, as verl's reward_extra_info) and its
  // "score" is the score. Throws verlpp::Error naming the function and library when it fails (NaN,
  // a negative count, no "score", too many values), returns a non-finite value or throws.
  ScoreResult operator()(std::string_view data_source, std::string_view solution_str,
                         std::string_view ground_truth, const nlohmann::json& extra_info) const;

 private:
  ScoreResult call_named(const std::string& source, const std::string& solution,
                         const std::string& truth, const std::string& extra) const;

  void* handle_ = nullptr;
  verlpp_compute_score_fn fn_ = nullptr;
  verlpp_compute_score_named_fn named_ = nullptr;
  std::string path_;
  std::string name_;
};

}  // namespace verlpp::reward
