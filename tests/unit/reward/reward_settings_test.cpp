// Reward settings read from a composed configuration (built-in defaults + verl-style overrides).
#include "verlpp/reward/reward_settings.h"

#include <gtest/gtest.h>

#include "verlpp/config/compose.h"
#include "verlpp/core/error.h"

namespace verlpp::reward {
namespace {

RewardSettings settings_for(std::vector<std::string> overrides) {
  config::ConfigRequest request;
  request.overrides = std::move(overrides);
  return reward_settings(config::compose_config(request).root);
}

TEST(RewardSettings, VerlDefaults) {
  const auto settings = settings_for({});
  EXPECT_EQ(settings.scorer.custom_path, "");
  EXPECT_EQ(settings.scorer.custom_name, "compute_score");
  EXPECT_FALSE(settings.scorer.rules.verl_compat);
  EXPECT_EQ(settings.manager.name, "naive");
  EXPECT_FALSE(settings.manager.overlong_buffer.enable);
}

TEST(RewardSettings, OverridesIncludingVerlCompatAndDapo) {
  const auto settings =
      settings_for({"+reward.reward_kwargs.verl_compat=true", "reward.reward_manager.name=dapo",
                    "reward.custom_reward_function.path=/tmp/libr.so",
                    "reward.custom_reward_function.name=my_fn",
                    "+reward.reward_kwargs.overlong_buffer_cfg.enable=true",
                    "+reward.reward_kwargs.overlong_buffer_cfg.len=4",
                    "+reward.reward_kwargs.overlong_buffer_cfg.penalty_factor=1",
                    "+reward.reward_kwargs.max_resp_len=16"});
  EXPECT_TRUE(settings.scorer.rules.verl_compat);
  EXPECT_EQ(settings.scorer.custom_path, "/tmp/libr.so");
  EXPECT_EQ(settings.scorer.custom_name, "my_fn");
  EXPECT_EQ(settings.manager.name, "dapo");
  EXPECT_TRUE(settings.manager.overlong_buffer.enable);
  EXPECT_EQ(settings.manager.overlong_buffer.len, 4);
  EXPECT_EQ(settings.manager.overlong_buffer.penalty_factor, 1.0);
  EXPECT_EQ(settings.manager.overlong_buffer.max_resp_len, 16);
}

TEST(RewardSettings, WrongTypeNamesTheKey) {
  try {
    settings_for({"+reward.reward_kwargs.verl_compat=maybe"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("reward.reward_kwargs.verl_compat: expected true or false"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace verlpp::reward
