// A tiny random Qwen3 and a hand-made PPO batch for the actor and critic tests.
#pragma once

#include "verlpp/data/batch.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::engine::testing {

inline constexpr std::int64_t kPrompt = 3, kResponse = 4, kVocab = 37;

model::CausalLM tiny_model(std::uint64_t seed = 7);
// The same shape as a Qwen3-MoE: 4 experts of width 8, top-2, every layer sparse.
model::CausalLM tiny_moe_model(std::uint64_t seed = 7);

// 6 rows: prompts left-padded to 3, responses right-padded to 4 of lengths 4,2,3,1,4,2; tensors
// input_ids, attention_mask, position_ids, responses, response_mask and advantages (seeded).
data::Batch tiny_batch();

// The largest absolute difference between the same-named parameters of two models of one shape.
double max_param_diff(const model::CausalLM& a, const model::CausalLM& b);

}  // namespace verlpp::engine::testing
