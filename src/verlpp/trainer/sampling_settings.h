// verl's sampling keys of actor_rollout_ref.rollout (verl.md §8.1: temperature, top_k, top_p,
// do_sample, ignore_eos, response_length, max_model_len (by default prompt_length +
// response_length), calculate_log_probs, max_num_seqs, enforce_eager, val_kwargs) as the rollout's
// SamplingParams: the one place they are translated.
#pragma once

#include <cstdint>
#include <vector>

#include "verlpp/config/sections.h"
#include "verlpp/rollout/sampling_params.h"

namespace verlpp::trainer {

// The rollout section's sampling keys, or its val_kwargs when `validate` (verl's _validate), with
// the given eos/pad ids. Throws verlpp::Error naming the key for temperature < 0, top_p outside
// (0, 1], response_length < 1, and for the MoE routing keys verlpp does not implement yet
// (enable_rollout_routing_replay, moe_load_balance_metrics_interval > 0).
rollout::SamplingParams sampling_settings(const config::RolloutConfig& rollout, bool validate,
                                          std::vector<std::int32_t> eos_token_ids,
                                          std::int32_t pad_token_id);

}  // namespace verlpp::trainer
