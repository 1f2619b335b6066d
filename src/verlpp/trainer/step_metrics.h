// Per-step data, timing and throughput metrics with verl's names and definitions
// (verl/trainer/ppo/metric_utils.py: compute_data_metrics, compute_timing_metrics,
// compute_throughout_metrics; verl.md §7.6).
#pragma once

#include <ATen/core/Tensor.h>

#include <map>
#include <optional>
#include <string>

#include "verlpp/trainer/tracking.h"

namespace verlpp::trainer {

// Tensors of one training batch (B rows). Floating tensors of any float dtype; masks 0/1.
struct StepBatch {
  at::Tensor token_level_scores;       // [B, R] reward before in-reward KL
  at::Tensor token_level_rewards;      // [B, R] reward after in-reward KL
  at::Tensor advantages;               // [B, R]
  at::Tensor returns;                  // [B, R]
  at::Tensor response_mask;            // [B, R]
  at::Tensor attention_mask;           // [B, P + R]: left-padded prompt then right-padded response
  std::int64_t max_prompt_length = 0;  // P
  std::int64_t max_response_length = 0;  // R
  std::optional<at::Tensor> values;      // [B, R] critic values (PPO with a critic)
};

// critic/score/*, critic/rewards/* (rows with a non-empty response only), critic/advantages/*,
// critic/returns/* (masked tokens), critic/values/* and critic/vf_explained_var
// (1 − var(R − V) / (var(R) + 1e-5), unbiased variances) when values are given,
// response_length/{mean,max,min,clip_ratio}, response_length_non_aborted/*,
// response/aborted_ratio, prompt_length/{mean,max,min,clip_ratio}. NaN where verl logs NaN (all
// rows aborted, empty mask).
Metrics compute_data_metrics(const StepBatch& batch);

// timing_s/{name} for each phase, and timing_per_token_ms/{name}: gen per response token; ref,
// values, adv, update_critic, update_actor per prompt + response token.
Metrics compute_timing_metrics(const StepBatch& batch,
                               const std::map<std::string, double>& timing_s);

// perf/total_num_tokens (Σ attention_mask), perf/time_per_step (timing_s/step) and
// perf/throughput = total_num_tokens / (time_per_step × n_gpus). Throws verlpp::Error when
// timing_s has no "step".
Metrics compute_throughput_metrics(const StepBatch& batch,
                                   const std::map<std::string, double>& timing_s,
                                   std::int64_t n_gpus);

// {prefix}/num_turns/{mean,max,min} (prefix "training" per step, "val-aux" in validation): verl's
// turns per sample. verlpp's rollout is single-turn, one user and one assistant turn a row, which
// verl's single-turn agent loop counts as 2.
Metrics compute_num_turns_metrics(const std::string& prefix);

}  // namespace verlpp::trainer
