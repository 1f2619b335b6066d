// Log-probabilities of given tokens and entropy of the token distribution, from hidden states,
// at a sampling temperature: log_softmax(logits / temperature)[target] and
// H = -sum_v p_v log p_v with p = softmax(logits / temperature), logits = hidden @ W^T (verl:
// verl/utils/torch_functional.py logprobs_from_logits and entropy_from_logits, with the logits
// divided by temperature as in verl's actor).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::model {

struct LogProbEntropy {
  at::Tensor logprobs;  // [T] fp32
  at::Tensor entropy;   // [T] fp32, undefined when not requested
};

// Computes them `chunk_tokens` tokens at a time so that at most [chunk_tokens, vocab] fp32 logits
// exist at once, in forward and in backward (the backward recomputes each chunk's logits):
// dlogp_t/dz = onehot(target) - p; dH/dz = -p (log p + H); both divided by temperature.
// hidden [T, H] and weight [V, H] in the model dtype (the GEMMs take that dtype; the logits, the
// softmax and the weight gradient's sum over chunks are fp32, see compat::mm_fp32/addmm_fp32_);
// targets [T] int64. Differentiable w.r.t. hidden and weight. Throws verlpp::Error on mismatched
// shapes, temperature <= 0 or chunk_tokens <= 0.
LogProbEntropy chunked_logprob_entropy(const at::Tensor& hidden, const at::Tensor& weight,
                                       const at::Tensor& targets, double temperature,
                                       bool with_entropy = true, int64_t chunk_tokens = 1024);

// The same quantities from full logits [T, V] with ordinary autograd (the unchunked reference).
LogProbEntropy logprob_entropy_from_logits(const at::Tensor& logits, const at::Tensor& targets,
                                           double temperature, bool with_entropy = true);

}  // namespace verlpp::model
