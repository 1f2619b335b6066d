// verl's migrate_legacy_reward_impl (verl/experimental/reward_loop/reward_loop.py): older scripts
// set the top-level reward_model, custom_reward_function and sandbox_fusion blocks (all null by
// default, config/ppo_trainer.yaml); verl copies each value that is set to its reward.* place
// before the run (reward_model.reward_manager -> reward.reward_manager.name,
// reward_model.enable -> reward.reward_model.enable, custom_reward_function.path ->
// reward.custom_reward_function.path, ...).
#pragma once

#include <string>
#include <vector>

#include "verlpp/config/interpolate.h"
#include "verlpp/config/node.h"

namespace verlpp::config {

// Copies every set (non-null) legacy value of `root` to its reward.* place, and renames the
// entries of `user_keys` that name a legacy key after the key it moved to (so the audit of
// unread settings judges the setting where verlpp reads it); an interpolation into a legacy key
// gets an edge into the key it moved to too (a recipe's reward_model.reward_kwargs.
// overlong_buffer_cfg: ${reward_model.overlong_buffer} is read as reward.reward_kwargs...).
void migrate_legacy_reward(Node& root, std::vector<std::string>& user_keys,
                           std::vector<InterpolationEdge>& interpolations);

}  // namespace verlpp::config
