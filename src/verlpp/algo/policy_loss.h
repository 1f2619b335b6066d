// Policy losses (verl: core_algos.py, POLICY_LOSS_REGISTRY / register_policy_loss; verl.md §3.3),
// selected by actor_rollout_ref.actor.policy_loss.loss_mode.
//
// Shapes: old_log_prob, log_prob, advantages, response_mask, rollout_is_weights are all
// [batch, response_length]; response_mask is bool or 0/1. The loss is a 0-dim tensor in
// log_prob's dtype; gradients flow into log_prob only (advantages and old_log_prob are treated as
// constants, as in verl). Notation: delta = log_prob - old_log_prob, A = advantages, eps_l/eps_h =
// clip_ratio_low/high (falling back to clip_ratio), agg = agg_loss(., mask, loss_agg_mode, info).
// Unless said otherwise the per-token loss is multiplied by rollout_is_weights (when given)
// before aggregation, and metric means are masked_mean over the response mask.
//
//   vanilla   PPO clip + dual clip. delta clamped to [-20, 20]; ratio = exp(delta);
//             L1 = -A*ratio, L2 = -A*clamp(ratio, 1-eps_l, 1+eps_h), Lc = max(L1, L2),
//             L3 = -A*clip_ratio_c, loss = min(L3, Lc) where A < 0 else Lc.
//             pg_clipfrac = mean(L2 > L1), pg_clipfrac_lower = mean(Lc > L3 and A < 0),
//             ppo_kl = mean(-delta). clip_ratio_c must be > 1.       (Schulman et al. 2017,
//             dual clip: Ye et al. 2020, arXiv 1912.09729)
//   gspo      sequence ratio: s = exp(min(log_prob - sg(log_prob) + sg(l_i), 10)), l_i =
//             sum_t delta*m / max(sum_t m, 1); loss = max(-A*s, -A*clamp(s, 1-eps_l, 1+eps_h)),
//             always aggregated seq-mean-token-mean. pg_clipfrac, ppo_kl, pg_clipfrac_lower = 0.
//             (arXiv 2507.18071)
//   sapo      ratio = exp(clamp(delta, +-20)); tau = tau_pos if A > 0 else tau_neg;
//             loss = -sigmoid(tau*(ratio-1))*4/tau*A, aggregated seq-mean-token-mean;
//             pg_clipfrac = pg_clipfrac_lower = 0, ppo_kl. (arXiv 2511.20347)
//   gpg       loss = -log_prob*A; no metrics.
//   dppo_tv   ratio = exp(clamp(delta, +-20)); w = sg(min(ratio, clip_ratio_c)); p = exp(log_prob),
//             q = exp(old_log_prob); valid = (p-q <= eps_h) if A > 0 else (p-q >= -eps_l);
//             loss = -A*w*log_prob*valid; pg_clipfrac = mean(1-valid), pg_clipfrac_lower =
//             mean((ratio > clip_ratio_c)*valid), ppo_kl. (arXiv 2602.04879)
//   dppo_kl   as dppo_tv with the binary KL D = q*(old_log_prob-log_prob) +
//             (1-q)*log((1-q+1e-8)/(1-p+1e-8)): valid = (D <= eps_h or p <= q) if A > 0 else
//             (D <= eps_l or p >= q).
//   clip_cov  ratio = exp(delta) (no clamp); L1, L2 as vanilla; cov = (A - mean(A)) *
//             (log_prob - mean(log_prob)), excluded (-inf) where masked or L2 > L1; of the tokens
//             with clip_cov_lb < cov < clip_cov_ub, max(int(clip_cov_ratio*sum(m)), 1) chosen
//             uniformly at random (randperm with `generator`) get loss 0; else max(L1, L2).
//             pg_clipfrac = fraction zeroed, ppo_kl. (arXiv 2505.22617)
//   kl_cov    ratio = exp(delta); over unmasked tokens cov = (A - mean A)*(log_prob - mean);
//             the top max(1, int(N*kl_cov_ratio)) by cov get -A*ratio + ppo_kl_coef*|delta|, the
//             rest -A*ratio. ppo_kl = mean(|delta|). (arXiv 2505.22617)
//   geo_mean  GMPO: dc = clamp(delta, -eps_l, eps_h); d* = sgn(A)*min(sgn(A)*delta, sgn(A)*dc);
//             rho_i = exp(sum d*·m / (sum m + 1e-8)); Abar_i = sum A·m / (sum m + 1e-8);
//             loss = mean_i(-Abar_i*rho_i) over all rows (ignores loss_agg_mode and info).
//             rollout_is_weights enter as their per-sequence geometric mean. ppo_kl;
//             pg_clipfrac = mean(delta != dc and A > 0), pg_clipfrac_lower = mean(delta != dc
//             and A < 0). (arXiv 2507.20673)
//   dro       loss = -(log_prob*A - 0.5*dro_beta*delta^2), dro_beta > 0 required. ppo_kl.
//   cispo     ratio = exp(clamp(delta, +-20));
//             loss = -sg(clamp(ratio, 1-eps_l, 1+eps_h))*A*log_prob;
//             pg_clipfrac = mean(ratio != clamped), pg_clipfrac_lower = 0, ppo_kl.
//             (arXiv 2506.13585)
//   bypass_mode  algorithm.rollout_correction.bypass_mode: old_log_prob is the rollout's log-prob.
//             The rollout correction (rollout_correction.h) of log_prob (detached) against it
//             gives IS weights and a rejection mask, which replaces response_mask in the policy
//             loss; then loss_type ppo_clip: vanilla without IS weights (the ratio already is
//             the IS ratio), or reinforce: loss = -A*log_prob*w (w the IS weights when
//             rollout_is is set), ppo_kl = mean(old_log_prob - log_prob). Metrics: the loss's
//             own and the correction's rollout_corr/* ones. (verl: core_algos.py
//             compute_policy_loss_bypass_mode, compute_policy_loss_reinforce)
// Unknown names throw verlpp::Error listing the valid ones.
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <functional>
#include <optional>
#include <string>

#include "verlpp/algo/agg_loss.h"
#include "verlpp/algo/metrics.h"
#include "verlpp/algo/registry.h"
#include "verlpp/algo/rollout_correction.h"

namespace verlpp::algo {

// actor_rollout_ref.actor.{clip_ratio*, tau_*, loss_agg_mode, policy_loss.*} with verl's defaults.
struct PolicyLossConfig {
  double clip_ratio = 0.2;
  std::optional<double> clip_ratio_low = 0.2;   // unset: clip_ratio
  std::optional<double> clip_ratio_high = 0.2;  // unset: clip_ratio
  double clip_ratio_c = 3.0;
  double tau_pos = 1.0;
  double tau_neg = 1.05;
  double clip_cov_ratio = 0.0002;
  double clip_cov_lb = 1.0;
  double clip_cov_ub = 5.0;
  double kl_cov_ratio = 0.0002;
  double ppo_kl_coef = 0.1;
  std::optional<double> dro_beta;
  std::string loss_agg_mode = "token-mean";
  RolloutCorrectionConfig rollout_correction;  // bypass_mode's correction and loss_type

  double low() const { return clip_ratio_low.value_or(clip_ratio); }
  double high() const { return clip_ratio_high.value_or(clip_ratio); }
};

struct PolicyLossInputs {
  at::Tensor old_log_prob;        // [batch, response_length]
  at::Tensor log_prob;            // [batch, response_length], the differentiated input
  at::Tensor advantages;          // [batch, response_length]
  at::Tensor response_mask;       // [batch, response_length]
  at::Tensor rollout_is_weights;  // optional, [batch, response_length]
  at::Generator generator;        // clip_cov's random choice; undefined: ATen's default generator
};

struct PolicyLossResult {
  at::Tensor loss;  // 0-dim
  Metrics metrics;
};

using PolicyLoss = std::function<PolicyLossResult(const PolicyLossInputs&, const PolicyLossConfig&,
                                                  const GlobalBatchInfo&)>;

PolicyLossResult compute_policy_loss_vanilla(const PolicyLossInputs& in, const PolicyLossConfig& c,
                                             const GlobalBatchInfo& info = {});

// vanilla, gspo, sapo, gpg, dppo_tv, dppo_kl, clip_cov, kl_cov, geo_mean, dro, cispo,
// bypass_mode.
Registry<PolicyLoss>& policy_losses();

// policy_losses().get(loss_mode)(in, config, info).
PolicyLossResult compute_policy_loss(const std::string& loss_mode, const PolicyLossInputs& in,
                                     const PolicyLossConfig& config = {},
                                     const GlobalBatchInfo& info = {});

}  // namespace verlpp::algo
