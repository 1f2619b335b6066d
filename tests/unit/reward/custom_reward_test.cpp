// Custom rewards loaded from shared libraries built by this test's CMakeLists
// (custom_reward_lib.c).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/reward/dispatch.h"
#include "verlpp/reward/reward_manager.h"

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

// <name>_named (verl's dict return): every value recorded, "score" as the reward.
TEST(CustomReward, NamedRewards) {
  const Scorer scorer(custom(CUSTOM_REWARD_LIB, "two_rewards"));
  const ScoreResult r = scorer("s", "#### 42", "42", nlohmann::json());
  EXPECT_EQ(r.score, 0.5);
  EXPECT_EQ(r.extra,
            (std::map<std::string, double>{{"score", 0.5}, {"format", 1.0}, {"length", 7.0}}));
  EXPECT_NE(error_of(Scorer(custom(CUSTOM_REWARD_LIB, "no_score"))).find("gave no \"score\""),
            std::string::npos);
  EXPECT_NE(error_of(Scorer(custom(CUSTOM_REWARD_LIB, "fails"))).find("'fails_named'"),
            std::string::npos);
  EXPECT_NE(error_of(Scorer(custom(CUSTOM_REWARD_LIB, "score_twice")))
                .find("gave \"score\" twice (values 1 and 2) for data_source 'math/x'"),
            std::string::npos);
}

// verl's reward_extra_info: a scalar score is "acc"; named values keep their names, and every
// row must give the same ones.
TEST(CustomReward, NamedRewardsBecomeExtraInfoAlikeForEveryRow) {
  const auto items = [](std::vector<std::string> responses) {
    std::vector<RewardItem> out;
    for (auto& r : responses) {
      RewardItem item;
      item.data_source = "s";
      item.response = r;
      item.ground_truth = "42";
      item.valid_response_length = 1;
      out.push_back(item);
    }
    return out;
  };
  const RewardOutput named = compute_rewards({}, Scorer(custom(CUSTOM_REWARD_LIB, "two_rewards")),
                                             items({"42", "#### 7"}), 2);
  EXPECT_EQ(named.extra.at("format"), (std::vector<double>{0, 1}));
  EXPECT_EQ(named.extra.at("score"), (std::vector<double>{1, 0}));
  EXPECT_EQ(named.extra.count("acc"), 0U);
  const RewardOutput scalar =
      compute_rewards({}, Scorer(custom(CUSTOM_REWARD_LIB, "exact_match")), items({"42", "7"}), 2);
  EXPECT_EQ(scalar.extra.at("acc"), (std::vector<double>{1, 0}));
  const Scorer uneven(custom(CUSTOM_REWARD_LIB, "uneven"));
  for (const auto& rows :
       {std::vector<std::string>{"a", "x"}, std::vector<std::string>{"x", "a"}}) {
    try {
      compute_rewards({}, uneven, items(rows), 2);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'bonus'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("reward row 1"), std::string::npos) << e.what();
    }
  }
}

TEST(CustomReward, APathWithoutFolderIsAFileInTheWorkingDirectory) {
  const std::filesystem::path library(CUSTOM_REWARD_LIB);
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(library.parent_path());
  std::string outcome;
  try {
    const Scorer scorer(custom(library.filename().string(), "exact_match"));
    outcome = std::to_string(scorer("any/source", "42", "42", nlohmann::json::object()).score);
  } catch (const Error& e) {
    outcome = e.what();
  }
  std::filesystem::current_path(cwd);
  EXPECT_EQ(outcome, std::to_string(1.0));
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
  EXPECT_NE(message(custom(CUSTOM_REWARD_LIB, "missing_fn"))
                .find("has no symbol 'missing_fn' or 'missing_fn_named'"),
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
