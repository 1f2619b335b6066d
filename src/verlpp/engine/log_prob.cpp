#include "verlpp/engine/log_prob.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <vector>

#include "verlpp/engine/response_forward.h"
#include "verlpp/model/layers/moe.h"
#include "verlpp/model/logprob.h"

namespace verlpp::engine {

LogProbOutput forward_log_prob(const model::CausalLM& model, const data::Batch& micro,
                               const ForwardSettings& forward, bool with_entropy,
                               bool with_moe_aux_loss, const at::Tensor& gather_ids) {
  const ResponseHidden where =
      response_hidden(model, micro, forward.remove_padding, with_moe_aux_loss);
  const int64_t K = gather_ids.defined() ? gather_ids.size(-1) : 0;
  const at::Tensor ids = gather_ids.defined()
                             ? gather_ids.to(where.hidden.device(), at::kLong)
                                   .reshape({-1, K})
                                   .index_select(0, where.flat_index)
                             : at::empty({where.hidden.size(0), 0}, where.targets.options());
  const model::GatheredLogProbs scored =
      model::chunked_logprobs_at_ids(where.hidden, model.lm_head_weight(), where.targets, ids,
                                     forward.temperature, with_entropy, forward.chunk_tokens);
  LogProbOutput out;
  out.log_probs = scatter_to_grid(scored.logprobs, where);
  if (with_entropy) out.entropy = scatter_to_grid(scored.entropy, where);
  if (forward.sum_pi_squared && !at::GradMode::is_enabled()) {
    out.sum_pi_squared =
        scatter_to_grid(model::chunked_sum_pi_squared(where.hidden, model.lm_head_weight(),
                                                      forward.temperature, forward.chunk_tokens),
                        where);
  }
  if (gather_ids.defined()) {
    out.gathered = scatter_to_grid(scored.gathered, where);
    out.top_ids = scatter_to_grid(scored.student_top_ids, where);
  }
  if (!where.router_logits.empty()) {
    const model::MoeConfig& moe = model.config().moe;
    out.moe_aux_loss =
        model::load_balancing_loss(where.router_logits, moe.num_experts, moe.num_experts_per_tok);
    out.tokens = where.router_logits.front().size(0);
  }
  return out;
}

LogProbOutput compute_log_prob(const model::CausalLM& model, const data::Batch& batch,
                               const MicroBatching& how, const ForwardSettings& forward,
                               bool with_entropy, const dist::Communicator& dp) {
  c10::AutoGradMode no_grad(false);
  std::vector<at::Tensor> log_probs, entropy, sum_pi_squared;
  const auto pieces = micro_batch_indices(batch.tensor("attention_mask"), how, dp);
  for (const auto& rows : pieces) {
    const LogProbOutput part = forward_log_prob(model, batch.select(rows), forward, with_entropy);
    log_probs.push_back(part.log_probs);
    if (with_entropy) entropy.push_back(part.entropy);
    if (forward.sum_pi_squared) sum_pi_squared.push_back(part.sum_pi_squared);
  }
  LogProbOutput out;
  out.log_probs = in_batch_order(log_probs, pieces);
  if (with_entropy) out.entropy = in_batch_order(entropy, pieces);
  if (forward.sum_pi_squared) out.sum_pi_squared = in_batch_order(sum_pi_squared, pieces);
  return out;
}

}  // namespace verlpp::engine
