#include "verlpp/algo/actor_loss.h"

#include <ATen/ATen.h>

#include "verlpp/algo/kl_penalty.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {

PolicyLossResult ppo_loss(const ActorLossInputs& in, const ActorLossConfig& config,
                          const GlobalBatchInfo& info) {
  const std::string& mode = config.policy.loss_agg_mode;
  PolicyLossResult result = compute_policy_loss(config.loss_mode, in.policy, config.policy, info);
  result.metrics["pg_loss"] = result.loss.detach().item<double>();
  at::Tensor loss = result.loss;
  if (config.entropy_coeff != 0 && !in.entropy.defined()) {
    throw Error("actor.entropy_coeff != 0 needs the per-token entropy");
  }
  if (in.entropy.defined()) {
    const at::Tensor entropy_loss = agg_loss(in.entropy, in.policy.response_mask, mode, info);
    result.metrics["entropy_loss"] = entropy_loss.detach().item<double>();
    if (config.entropy_coeff != 0) loss = loss - config.entropy_coeff * entropy_loss;
  }
  if (config.use_kl_loss) {
    if (!in.ref_log_prob.defined()) {
      throw Error("actor.use_kl_loss=true needs the reference policy's log-probs");
    }
    const at::Tensor kl = kl_penalty(in.policy.log_prob, in.ref_log_prob, config.kl_loss_type);
    const at::Tensor kl_loss = agg_loss(kl, in.policy.response_mask, mode, info);
    result.metrics["kl_loss"] = kl_loss.detach().item<double>();
    result.metrics["kl_coef"] = config.kl_loss_coef;
    loss = loss + config.kl_loss_coef * kl_loss;
  }
  result.loss = loss;
  return result;
}

}  // namespace verlpp::algo
