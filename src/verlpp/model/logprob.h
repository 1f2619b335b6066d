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

// The same, and log_softmax(logits / temperature) at given ids [T, K] (int64; the distillation
// teacher's top-k) with the model's own top-K ids there, in one pass over the logits chunks.
// Differentiable w.r.t. hidden and weight through logprobs, entropy and gathered (d log p_id / dz
// = onehot(id) - p). student_top_ids: int64 [T, K], the K largest logits of each token (ties in
// at::topk's order), not differentiable.
struct GatheredLogProbs {
  at::Tensor logprobs;         // [T] fp32
  at::Tensor entropy;          // [T] fp32, undefined unless requested
  at::Tensor gathered;         // [T, K] fp32
  at::Tensor student_top_ids;  // [T, K] int64
};
GatheredLogProbs chunked_logprobs_at_ids(const at::Tensor& hidden, const at::Tensor& weight,
                                         const at::Tensor& targets, const at::Tensor& ids,
                                         double temperature, bool with_entropy = false,
                                         int64_t chunk_tokens = 1024);

// The k most probable tokens of each position and their log-probs under log_softmax(logits /
// temperature), chunk by chunk with no gradients: ids [T, k] int64 and logprobs [T, k] fp32,
// largest first. Throws verlpp::Error for k < 1 or k > V (naming both).
struct TopkLogProbs {
  at::Tensor ids;
  at::Tensor logprobs;
};
TopkLogProbs chunked_topk_logprobs(const at::Tensor& hidden, const at::Tensor& weight, int64_t k,
                                   double temperature, int64_t chunk_tokens = 1024);

// Per-token KL(p || q) = sum_v p_v (log p_v - log q_v) over the whole vocabulary, with p =
// softmax(hidden_p W_p^T / temperature_p) and q = softmax(hidden_q W_q^T / temperature_q) (two
// models scoring the same tokens; hidden_q may sit on another device), chunk by chunk, no
// gradients: fp32 [T] on hidden_p's device. Throws verlpp::Error when the token counts or the
// vocabulary sizes differ.
at::Tensor chunked_kl_divergence(const at::Tensor& hidden_p, const at::Tensor& weight_p,
                                 double temperature_p, const at::Tensor& hidden_q,
                                 const at::Tensor& weight_q, double temperature_q,
                                 int64_t chunk_tokens = 1024);

// sum_v p_v^2 of p = softmax(hidden W^T / temperature) per token, as exp(logsumexp(2z) -
// 2 logsumexp(z)) with z the scaled logits (verl: torch_functional.py
// calculate_sum_pi_squared_from_logits), chunk by chunk in fp32, no gradients: fp32 [T]. Throws
// verlpp::Error as chunked_logprob_entropy.
at::Tensor chunked_sum_pi_squared(const at::Tensor& hidden, const at::Tensor& weight,
                                  double temperature, int64_t chunk_tokens = 1024);

// The same quantities from full logits [T, V] with ordinary autograd (the unchunked reference).
LogProbEntropy logprob_entropy_from_logits(const at::Tensor& logits, const at::Tensor& targets,
                                           double temperature, bool with_entropy = true);

}  // namespace verlpp::model
