// VLLM_BATCH_INVARIANT, vLLM's switch for its batch-invariant kernels, which verl users set so that
// the trainer can reproduce the rollout's log-probs; verlpp reads it for its own batch-invariant
// mode (model/batch_invariant.h) in every command that runs a model (ppo, sft, generate, model
// score). Torch-free, so that `verlpp check` reads it with the rule a run applies.
#pragma once

#include <string>

namespace verlpp {

// The variable's value; "" when it is unset.
std::string batch_invariant_value();

// True for the values the switch takes: "" or "0" (off) and "1" (on), vLLM's values.
bool is_batch_invariant_value(const std::string& value);

// Whether the mode is on. Throws verlpp::Error naming the variable and its value for a value
// is_batch_invariant_value refuses.
bool batch_invariant_requested();

}  // namespace verlpp
