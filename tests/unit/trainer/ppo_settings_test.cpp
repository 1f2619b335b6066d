// The actor's settings read from the typed configuration (trainer/ppo_settings.h).
#include "verlpp/trainer/ppo_settings.h"

#include <gtest/gtest.h>

#include "verlpp/config/compose.h"
#include "verlpp/config/sections.h"

namespace verlpp::trainer {
namespace {

// verl divides the logits of every forward by clamp(rollout.temperature, min=1e-8) (verl.md §3),
// so a greedy rollout at temperature 0 is scored nearly one-hot, not at temperature 1 (a
// break-test saw actor/entropy 11.92 at temperature 0, the same as at 1).
TEST(PpoSettings, ForwardTemperatureIsTheRolloutsClampedAsVerlDoes) {
  config::Config c;
  c.rollout.sampling.temperature = 0.7;
  EXPECT_EQ(actor_settings(c).forward.temperature, 0.7);
  c.rollout.sampling.temperature = 0.0;
  EXPECT_EQ(actor_settings(c).forward.temperature, 1e-8);
}

// The loss modes' own keys reach the policy loss (bt13: SAPO's tau_pos/tau_neg, clip_cov's band
// and kl_cov's ppo_kl_coef were verl's defaults whatever the config said, and refused as unread).
TEST(PpoSettings, PolicyLossKeysReachTheLoss) {
  config::ConfigRequest request;
  const std::string actor = "actor_rollout_ref.actor.";
  request.overrides = {actor + "tau_pos=2.5",
                       actor + "tau_neg=3.5",
                       actor + "policy_loss.clip_cov_lb=0.5",
                       actor + "policy_loss.clip_cov_ub=7",
                       actor + "policy_loss.ppo_kl_coef=1",
                       "actor_rollout_ref.rollout.name=vllm"};
  const config::Config c = config::bind_config(config::compose_config(request).root);
  const algo::PolicyLossConfig& loss = actor_settings(c).loss.policy;
  EXPECT_EQ(loss.tau_pos, 2.5);
  EXPECT_EQ(loss.tau_neg, 3.5);
  EXPECT_EQ(loss.clip_cov_lb, 0.5);
  EXPECT_EQ(loss.clip_cov_ub, 7.0);
  EXPECT_EQ(loss.ppo_kl_coef, 1.0);
}

}  // namespace
}  // namespace verlpp::trainer
