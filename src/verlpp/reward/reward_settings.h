// The reward settings of a composed verl configuration (verl.md §1.10): which scorer and which
// reward manager the trainer uses.
#pragma once

#include "verlpp/config/node.h"
#include "verlpp/reward/dispatch.h"
#include "verlpp/reward/reward_manager.h"

namespace verlpp::reward {

struct RewardSettings {
  ScorerConfig scorer;
  RewardManagerConfig manager;
};

// Reads, all optional (absent or null keeps the default):
//   reward.custom_reward_function.path / .name       -> scorer.custom_path / custom_name
//   reward.reward_manager.name                        -> manager.name
//   reward.reward_kwargs.verl_compat (bool)           -> scorer.rules.verl_compat (verlpp's key)
//   reward.reward_kwargs.overlong_buffer_cfg.{enable,len,penalty_factor,log},
//   reward.reward_kwargs.max_resp_len                 -> manager.overlong_buffer (verl's DAPO keys)
// reward_kwargs is an open map in verl, so these are set with '+', e.g.
// `+reward.reward_kwargs.verl_compat=true`. Throws verlpp::Error naming the key for a value of the
// wrong type.
RewardSettings reward_settings(const config::Node& root);

}  // namespace verlpp::reward
