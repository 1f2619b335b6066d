// The rollout engine: batched generation from the actor's own weights (no copy, no weight sync),
// with a KV cache, prefill then decode, and verl's sampling keys (verl.md §8.1:
// actor_rollout_ref.rollout.{temperature, top_k, top_p, do_sample, ignore_eos, response_length,
// calculate_log_probs, val_kwargs}).
#pragma once

#include <cstdint>
#include <vector>

#include "verlpp/config/sections.h"
#include "verlpp/data/batch.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::rollout {

struct SamplingParams {
  double temperature = 1.0;  // 0 (or do_sample = false) means greedy
  std::int64_t top_k = -1;   // <= 0: off
  double top_p = 1.0;        // 1: off
  bool do_sample = true;
  bool ignore_eos = false;
  std::int64_t max_response_length = 0;     // R: response_length
  std::vector<std::int32_t> eos_token_ids;  // tokenizer eos + generation_config eos (any of them)
  std::int32_t pad_token_id = 0;
  bool calculate_log_probs = true;
  // rollout.max_num_seqs: rows generated at once (the KV cache is sized for this many; larger
  // batches are generated in consecutive chunks). <= 0: all rows at once.
  std::int64_t max_num_seqs = 0;
  // Engine setting, not a verl key: decode steps between removals of finished rows from the decode
  // batch (each removal waits for the device). <= 0: every step on the CPU, every 8 on CUDA;
  // finished rows still in the batch are computed and their output discarded.
  std::int64_t compaction_interval = 0;
  // Replay decode steps from CUDA graphs (bf16/fp16 CUDA models whose architecture allows it,
  // CausalLM::decode_capturable; builds with CUDA graphs and flash attention over the KV cache);
  // false (rollout.enforce_eager): launch every kernel each step.
  bool use_cuda_graph = true;
  // Engine setting, not a verl key: false recomputes the whole prefix of every row at every step
  // instead of reading the KV cache (a reference path for checking the cache; slow).
  bool use_kv_cache = true;
};

// The rollout section's sampling keys, or its val_kwargs when `validate` (verl's _validate), with
// the given eos/pad ids. Throws verlpp::Error naming the key for temperature < 0, top_p outside
// (0, 1], response_length < 1, and for the MoE routing keys verlpp does not implement yet
// (enable_rollout_routing_replay, moe_load_balance_metrics_interval > 0).
SamplingParams sampling_params(const config::RolloutConfig& rollout, bool validate,
                               std::vector<std::int32_t> eos_token_ids, std::int32_t pad_token_id);

// Generates one response per row of `prompts` (the trainer repeats rows for rollout.n).
// prompts: tensors input_ids, attention_mask, position_ids: int64 [B, P], left-padded (the layout
// of data::RLHFDataset::collate); any non-tensor fields are carried over unchanged.
// Returns a Batch with the non-tensor fields of `prompts` and these tensors on the model's device:
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
// meta_info is copied. Finished rows leave the decode batch (see compaction_interval). More rows
// than max_num_seqs are generated in chunks of max_num_seqs rows. Row i draws its random numbers
// from (seed, first_row + i, step) (rollout::row_uniforms), so sampling depends on the seed, the
// row's prompt and its index in the whole batch only: generating rows [a, b) of a batch with
// first_row = a (a data-parallel rank's slice, a max_num_seqs chunk) gives those rows of the whole
// batch's result, up to the device's floating-point differences between batch sizes.
// Throws verlpp::Error for missing or mis-shaped prompt tensors, an empty prompt row, a prompt id
// outside the vocabulary or max_response_length < 1.
data::Batch generate_sequences(const model::CausalLM& model, const data::Batch& prompts,
                               const SamplingParams& params, std::uint64_t seed,
                               std::int64_t first_row = 0);

}  // namespace verlpp::rollout
