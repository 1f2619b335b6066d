// Custom rewards loaded from shared libraries built by this test's CMakeLists
// (custom_reward_lib.c).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "verlpp/core/error.h"
#include "verlpp/reward/dispatch.h"

namespace verlpp::reward {
namespace {

ScorerConfig custom(const std::string& path, const std::string& name) {
  ScorerConfig config;
  config.custom_path = path;
  config.custom_name = name;
  return config;
}

TEST(CustomReward, CallsTheLibraryFunction) {
  const Scorer scorer(custom(CUSTOM_REWARD_LIB, "exact_match"));
  EXPECT_EQ(scorer("any/source", "42", "42", nlohmann::json::object()).score, 1.0);
  EXPECT_EQ(scorer("any/source", "it is 42", "42", nlohmann::json()).score, 0.5);
  EXPECT_EQ(scorer("any/source", "7", "42", {{"note", "bonus"}}).score, 10.0);
}

TEST(CustomReward, NanIsAnError) {
  const Scorer scorer(custom(CUSTOM_REWARD_LIB, "always_fails"));
  EXPECT_THROW(scorer("s", "a", "b", nlohmann::json()), Error);
}

std::string error_of(const Scorer& scorer) {
  try {
    scorer("math/x", "a", "b", nlohmann::json());
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CustomReward, InfinityIsAnErrorNamingTheFunction) {
  const std::string what = error_of(Scorer(custom(CUSTOM_REWARD_LIB, "always_infinite")));
  EXPECT_NE(what.find("custom reward 'always_infinite'"), std::string::npos) << what;
  EXPECT_NE(what.find("returned -inf"), std::string::npos) << what;
  EXPECT_NE(what.find("math/x"), std::string::npos) << what;
}

TEST(CustomReward, AThrowingLibraryIsAnErrorNamingIt) {
  const std::string what =
      error_of(Scorer(custom(CUSTOM_REWARD_THROWING_LIB, "throws_runtime_error")));
  EXPECT_NE(what.find("custom reward 'throws_runtime_error'"), std::string::npos) << what;
  EXPECT_NE(what.find(CUSTOM_REWARD_THROWING_LIB), std::string::npos) << what;
  EXPECT_NE(what.find("no answer parser for this data source"), std::string::npos) << what;
}

TEST(CustomReward, BadLibrariesAreClearErrors) {
  const auto message = [](const ScorerConfig& config) {
    try {
      Scorer scorer(config);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(custom(CUSTOM_REWARD_LIB, "missing_fn")).find("has no symbol 'missing_fn'"),
            std::string::npos);
  EXPECT_NE(message(custom("/nonexistent/libx.so", "f")).find("cannot load '/nonexistent/libx.so'"),
            std::string::npos);
  EXPECT_NE(message(custom("reward.py", "f")).find("is a Python file"), std::string::npos);
  EXPECT_NE(message(custom(CUSTOM_REWARD_WRONG_VERSION_LIB, "compute_score"))
                .find("returned 2, this verlpp expects 1"),
            std::string::npos);
}

TEST(Dispatch, ByDataSource) {
  const Scorer scorer(ScorerConfig{});
  EXPECT_EQ(scorer("openai/gsm8k", "#### 72", "72", nlohmann::json()).score, 1.0);
  EXPECT_EQ(
      scorer("HuggingFaceH4/MATH-500", "\\boxed{0.5}", "\\frac{1}{2}", nlohmann::json()).score,
      1.0);
  EXPECT_EQ(scorer("lighteval/MATH", "#### 72", "72", nlohmann::json()).score, 0.0);
  try {
    scorer("my/dataset", "x", "y", nlohmann::json());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'my/dataset'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("custom_reward_function"), std::string::npos);
  }
}

}  // namespace
}  // namespace verlpp::reward
