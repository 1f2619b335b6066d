// The actor's settings read from the typed configuration (trainer/ppo_settings.h).
#include "verlpp/trainer/ppo_settings.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace verlpp::trainer
