// The token ids a rollout stops at and pads with, shared by `verlpp ppo` and `verlpp generate` so
// that both generate alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/model/model_config.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::trainer {

// The ids that end a response, as vLLM (verl's rollout) stops: the tokenizer's eos ids (its
// folder's generation_config.json included; none without a tokenizer), the model's config.json
// eos_token_id and the model folder's generation_config.json eos_token_id (an id or a list),
// ascending, without repeats. Throws verlpp::Error naming the file for invalid JSON or an
// eos_token_id list holding something else than integers.
std::vector<std::int32_t> stop_token_ids(const tokenizer::Tokenizer* tok,
                                         const std::string& model_dir,
                                         const model::ModelConfig& config);

// verl's pad id: the tokenizer's pad token, else its eos token (verl's hf_tokenizer sets the pad
// token to the eos token when there is none); 0 without a tokenizer (token ids in and out, where
// only response padding and masked prompt padding carry it).
std::int32_t pad_token_id(const tokenizer::Tokenizer* tok);

}  // namespace verlpp::trainer
