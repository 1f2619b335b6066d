// The rollout engine: batched generation from the actor's own weights (no copy, no weight sync),
// with a KV cache, prefill then decode, under SamplingParams (sampling_params.h; verl.md §8.1's
// actor_rollout_ref.rollout keys reach it through trainer/sampling_settings.h).
#pragma once

#include <cstdint>
#include <vector>

#include "verlpp/data/batch.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/generation_stop.h"
#include "verlpp/rollout/sampling_params.h"

namespace verlpp::rollout {

// Generates one response per row of `prompts` (the trainer repeats rows for rollout.n).
// prompts: tensors input_ids, attention_mask, position_ids: int64 [B, P], left-padded (the layout
// of data::RLHFDataset::collate); any non-tensor fields are carried over unchanged. Rows with
// images (per-row tensors pixel_values and image_grid_thw, data/rl_dataset.h; a model with a
// vision tower) are prefilled with their image features and M-RoPE streams and decode from the
// largest prompt position + 1 (= index + rope_delta); the model's image and video pad tokens are
// never sampled (verl bans them in vLLM); the engine only (not static_batches or use_kv_cache =
// false, which throw for images).
// Returns a Batch with the non-tensor and per-row tensor fields of `prompts` and these tensors on
// the model's device:
//   prompts           int64 [B, P]      the input_ids as given
//   responses         int64 [B, R]      right-padded with pad_token_id; an eos that ends a response
//                                       is part of it
//   response_mask     int64 [B, R]      1 on response tokens
//   input_ids         int64 [B, P + R]  prompts then responses
//   attention_mask    int64 [B, P + R]  prompt mask then response_mask
//   position_ids      int64 [B, P + R]  prompt positions, then last real prompt position + 1..R
//                                       (verl's layout, also under response padding)
//   rollout_log_probs fp32  [B, R]      log p(token) under softmax(logits / temperature) (before
//                                       top-k/top-p truncation; temperature 0 counts as 1), 0 at
//                                       padding; only when calculate_log_probs
// meta_info is copied. Rows with the same prompt (tokens and positions; rollout.n repeats) are
// prefilled once, in the first such row, and the others start from a copy of its state. Finished
// rows leave the decode batch (see compaction_interval). More rows
// than max_num_seqs are generated in chunks of max_num_seqs rows. Row i draws its random numbers
// from (seed, first_row + i, step) (rollout::row_uniforms), so sampling depends on the seed, the
// row's prompt and its index in the whole batch only: generating rows [a, b) of a batch with
// first_row = a (a data-parallel rank's slice, a max_num_seqs chunk) gives those rows of the whole
// batch's result, up to the device's floating-point differences between batch sizes.
// Throws verlpp::Error for missing or mis-shaped prompt tensors, an empty prompt row, a prompt id
// outside the vocabulary or max_response_length < 1; GenerationStopped (generation_stop.h) when
// `stop` returns true before a decode step.
data::Batch generate_sequences(const model::CausalLM& model, const data::Batch& prompts,
                               const SamplingParams& params, std::uint64_t seed,
                               std::int64_t first_row = 0, const StopCheck& stop = {});

}  // namespace verlpp::rollout
