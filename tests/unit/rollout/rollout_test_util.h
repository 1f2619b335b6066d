// Helpers for the rollout tests: fixture checkpoints (tests/fixtures/model, made by
// tools/make_model_fixtures.py), left-padded prompt batches as data::RLHFDataset::collate makes
// them, and greedy decoding by full recomputation (no KV cache) as an independent reference.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/data/batch.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/sampling_params.h"

namespace verlpp::rollout::testing {

std::string model_dir(const std::string& name);  // tests/fixtures/model/<name>
model::CausalLM load_fp32(const std::string& name);

// input_ids/attention_mask/position_ids [B, P] left-padded with `pad`; positions
// clamp(cumsum(mask) - 1, 0) as verl's compute_position_id_with_mask.
data::Batch left_padded(const std::vector<std::vector<int64_t>>& prompts, int64_t P, int64_t pad);

// Greedy continuation of `prompt` by `steps` argmax steps, each from a full forward over the whole
// sequence so far (forward_packed, no cache).
std::vector<int64_t> greedy_by_recomputation(const model::CausalLM& m,
                                             const std::vector<int64_t>& prompt, int64_t steps);

std::vector<int64_t> row(const at::Tensor& t, int64_t r);

// Greedy decoding (log-probs at temperature 1) of up to `response_length` tokens, padded with
// `pad`.
SamplingParams greedy_params(int64_t response_length, int64_t pad);

}  // namespace verlpp::rollout::testing
