// Next-token sampling for the rollout engine, with verl's rollout keys (temperature, top_k, top_p,
// do_sample). Order as transformers' logits warpers and vLLM's sampler: divide the logits by the
// temperature, keep the top_k largest (ties at the k-th value kept), then the smallest set of the
// most probable tokens whose probability reaches top_p (transformers TopPLogitsWarper: sort
// ascending, drop tokens whose cumulative probability is <= 1 - top_p, always keep the most
// probable), then draw from the softmax of what is left.
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::rollout {

struct SamplerSettings {
  bool greedy = false;       // argmax of the logits (do_sample = false or temperature 0)
  double temperature = 1.0;  // > 0 when sampling; that of the log-probs (greedy with 0: 1)
  std::int64_t top_k = -1;   // <= 0 or >= vocab: off
  double top_p = 1.0;        // in (0, 1]; 1: off
};

struct SampledTokens {
  at::Tensor tokens;    // [N] int64
  at::Tensor logprobs;  // [N] fp32: log softmax(logits / temperature)[token], before truncation
};

// logits [N, V] (any float dtype; computed in fp32). The draw is the exponential race
// argmax_v p_v / E_v with E_v ~ Exp(1) i.i.d. from `generator` (equivalent to sampling from p),
// so it needs no host synchronisation. Throws verlpp::Error for temperature <= 0 or top_p outside
// (0, 1].
SampledTokens sample_tokens(const at::Tensor& logits, const SamplerSettings& settings,
                            at::Generator& generator);

// logits / temperature with the tokens that top_k / top_p remove set to -inf, fp32 [N, V].
at::Tensor truncated_logits(const at::Tensor& logits, const SamplerSettings& settings);

}  // namespace verlpp::rollout
