// The actor's loss as verl assembles it (verl: verl/workers/utils/losses.py::ppo_loss;
// verl.md §3.5): policy loss - entropy_coeff * agg(entropy) + kl_loss_coef * agg(kl_penalty(
// log_prob, ref_log_prob, kl_loss_type)), every term aggregated with actor.loss_agg_mode and the
// same global batch information.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>

#include "verlpp/algo/agg_loss.h"
#include "verlpp/algo/metrics.h"
#include "verlpp/algo/policy_loss.h"

namespace verlpp::algo {

// actor_rollout_ref.actor.* keys of the loss, with verl's defaults.
struct ActorLossConfig {
  std::string loss_mode = "vanilla";  // policy_loss.loss_mode
  PolicyLossConfig policy;            // clip ratios, loss_agg_mode, policy_loss.*
  double entropy_coeff = 0.0;
  bool use_kl_loss = false;
  double kl_loss_coef = 0.001;
  std::string kl_loss_type = "low_var_kl";
};

struct ActorLossInputs {
  PolicyLossInputs policy;  // old_log_prob, log_prob, advantages, response_mask, IS weights
  // [batch, response_length] per-token entropy of the current policy; optional (needed when
  // entropy_coeff != 0; when given it is aggregated and reported as entropy_loss).
  at::Tensor entropy;
  at::Tensor ref_log_prob;  // [batch, response_length]; needed when use_kl_loss
};

// loss: 0-dim, differentiable with respect to log_prob (and entropy). Metrics: the policy loss's
// own, pg_loss, entropy_loss (when entropy is given), kl_loss and kl_coef (when use_kl_loss).
// Throws verlpp::Error for unknown names or a missing input.
PolicyLossResult ppo_loss(const ActorLossInputs& in, const ActorLossConfig& config,
                          const GlobalBatchInfo& info = {});

}  // namespace verlpp::algo
