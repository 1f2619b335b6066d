// The prompt side and the result side of a generation call, shared by its paths (rollout.cpp,
// engine.cpp): the prompts' real tokens packed back to back, rows sharing a prompt, the sampler
// settings of SamplingParams, and the result batch generate_sequences returns (rollout.h).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "verlpp/data/batch.h"
#include "verlpp/model/model_config.h"
#include "verlpp/rollout/request.h"
#include "verlpp/rollout/sampling.h"
#include "verlpp/rollout/sampling_params.h"

namespace verlpp::rollout {

// The prompts' real tokens packed back to back (rows in order), on the host.
struct PackedPrompts {
  at::Tensor ids, positions, cu_seqlens;  // [T], [T], [B + 1]
  std::vector<int64_t> lengths;
  at::Tensor last_positions;  // [B] int64: position id of each row's last real token
  int64_t max_length = 0;
  // [B]: each row's images (per-row tensors pixel_values and image_grid_thw of the prompt batch,
  // data/rl_dataset.h), null for a row without; empty when the batch has none.
  std::vector<std::shared_ptr<const PromptImages>> images;
};

// Throws verlpp::Error for missing or mis-shaped prompt tensors, an empty row, an id outside
// [0, vocab_size), or images (naming the row) for a model without vision_config or whose pad runs
// do not match their grids.
PackedPrompts pack_prompts(const data::Batch& prompts, const model::ModelConfig& config);

// Rows whose prompts are the same tokens at the same positions with the same images (the same
// pixel tensor: the trainer repeats each prompt rollout.n times, sharing it): each prompt's first
// row, and for each row the index of its prompt there. Without `share` every row is its own group.
struct PromptGroups {
  std::vector<int64_t> firsts;  // ascending rows
  std::vector<int64_t> group;   // [B]
};
PromptGroups group_prompts(const PackedPrompts& p, bool share);

// The packed prompts of `rows` (ascending) only.
PackedPrompts packed_rows(const PackedPrompts& p, const std::vector<int64_t>& rows);

SamplerSettings sampler_settings(const SamplingParams& params);

// params.max_response_length; throws verlpp::Error when it is below 1, when the longest
// prompt plus it exceeds max_position_embeddings (> 0) of the model (verl's rollout asserts the
// same of its configured lengths), or when a prompt is longer than params.max_model_len (> 0;
// vLLM refuses such a prompt; the row named is first_row + its row in `packed`: its row in the
// step's batch).
int64_t response_length(const SamplingParams& params, const PackedPrompts& packed,
                        int64_t max_position_embeddings, int64_t first_row);

// [B]: the tokens each row may sample: `response_length`, or fewer where its prompt plus that
// would pass params.max_model_len: max_model_len - prompt, at least 1 (vLLM v1 stops a request
// once prompt + output reach max_model_len, after its first token). Empty when no row is capped.
std::vector<int64_t> capped_response_lengths(const SamplingParams& params,
                                             const PackedPrompts& packed, int64_t response_length);

// generate_sequences' result (rollout.h) from the responses [B, R] (tokens, response mask,
// log-probs) on the model's device. Throws verlpp::Error when a response token's log-prob is NaN
// or infinite (a model with non-finite weights).
data::Batch response_batch(const data::Batch& prompts, const PackedPrompts& packed,
                           const at::Tensor& tokens, const at::Tensor& mask,
                           const at::Tensor& logprobs, const SamplingParams& params);

}  // namespace verlpp::rollout
