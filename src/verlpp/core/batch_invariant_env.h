// VLLM_BATCH_INVARIANT, vLLM's switch for its batch-invariant kernels, which verl users set so that
// the trainer can reproduce the rollout's log-probs; verlpp reads it for its own batch-invariant
// mode (model/batch_invariant.h), in the rollout and the trainer alike. Torch-free, so that
// `verlpp check` reads it with the rule a run applies.
#pragma once

namespace verlpp {

// Unset, empty or "0": off; "1": on (vLLM's values). Throws verlpp::Error naming the variable and
// its value for anything else.
bool batch_invariant_requested();

}  // namespace verlpp
