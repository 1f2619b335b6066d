// Per-token log-probabilities (and entropy) of a batch's responses under a model, micro-batch by
// micro-batch: the actor's old_log_prob pass and the reference policy's ref_log_prob pass (verl:
// verl/workers/actor/dp_actor.py compute_log_prob; logits divided by the rollout temperature).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "verlpp/data/batch.h"
#include "verlpp/engine/micro_batches.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::engine {

struct ForwardSettings {
  bool remove_padding = true;        // actor_rollout_ref.model.use_remove_padding
  double temperature = 1.0;          // actor_rollout_ref.rollout.temperature
  std::int64_t chunk_tokens = 1024;  // tokens per [chunk, vocab] logits block
  // actor.calculate_sum_pi_squared: sum_v pi_v^2 per token in the no-grad pass (the optimal
  // token baseline's input; one more pass over the lm_head per chunk).
  bool sum_pi_squared = false;
};

struct LogProbOutput {
  at::Tensor log_probs;  // fp32 [B, R], 0 where attention_mask[:, P:] is 0
  at::Tensor entropy;    // fp32 [B, R] (same zeros), undefined unless requested
  // fp32 [B, R] (same zeros): sum_v pi_v^2 (model::chunked_sum_pi_squared), only from
  // compute_log_prob with ForwardSettings::sum_pi_squared.
  at::Tensor sum_pi_squared;
  // fp32 scalar: transformers' load-balancing loss over the batch's real tokens
  // (model::load_balancing_loss); defined only when requested and the model has sparse layers.
  at::Tensor moe_aux_loss;
  std::int64_t tokens = 0;  // real tokens of the batch (the aux loss's rows per layer)
  // With gather_ids: log-probs fp32 [B, R, K] at those ids and the model's own top-K ids int64
  // [B, R, K] (model::chunked_logprobs_at_ids); zeros beyond each response.
  at::Tensor gathered;
  at::Tensor top_ids;
};

// One micro-batch, differentiable when grad mode is on (the update pass). gather_ids: int64
// [B, R, K] (the distillation teacher's top-k ids), or undefined.
LogProbOutput forward_log_prob(const model::CausalLM& model, const data::Batch& micro,
                               const ForwardSettings& forward, bool with_entropy,
                               bool with_moe_aux_loss = false,
                               const at::Tensor& gather_ids = at::Tensor());

// The whole batch without gradients, micro-batched by `how` (the count equalised over `dp`'s
// ranks, micro_batch_indices), rows in the batch's order, on the model's device. Throws
// verlpp::Error for missing or mis-shaped tensors.
LogProbOutput compute_log_prob(const model::CausalLM& model, const data::Batch& batch,
                               const MicroBatching& how, const ForwardSettings& forward,
                               bool with_entropy, const dist::Communicator& dp = {});

}  // namespace verlpp::engine
