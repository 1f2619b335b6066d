// On-policy distillation losses (verl: verl/trainer/distillation/losses.py,
// fsdp/losses.py::compute_forward_kl_topk, verl/workers/config/distillation.py; verl.md §4),
// selected by distillation.distillation_loss.loss_mode.
//
// Per response token a divergence D between student and teacher is computed, then
//   loss_max_clamp (if set): D = clamp(D, -c, c)   (metrics loss_min/loss_max/abs_loss before)
//   use_policy_gradient:    advantages A = -sg(D); loss = vanilla PPO clip (policy_loss.h) with
//                           old_log_prob, the distillation clip ratios and clip_ratio_c; its
//                           metrics renamed distillation/pg_clipfrac, distillation/ppo_kl,
//                           distillation/pg_clipfrac_lower (Thinking Machines' on-policy
//                           distillation)
//   otherwise:              loss = agg_loss(D, mask, actor.loss_agg_mode, info)  (GKD style)
// Estimator modes (kl/k1, abs, mse/k2, low_var_kl/k3, with '+' variants) use
// D = kl_penalty(student_log_prob, teacher_log_prob, loss_mode) ("reverse KL": tokens come from
// the student). forward_kl_topk uses the teacher's top-k distribution (forward_kl_topk below).
// Shapes: [batch, response_length] per-token tensors; logits [batch, response_length, vocab];
// teacher top-k ids/log-probs [batch, response_length, k].
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>

#include "verlpp/algo/actor_loss.h"
#include "verlpp/algo/agg_loss.h"
#include "verlpp/algo/metrics.h"

namespace verlpp::algo {

// distillation.distillation_loss.* with verl's YAML defaults.
struct DistillationLossConfig {
  std::string loss_mode = "k3";
  int64_t topk = 32;
  bool use_task_rewards = true;
  double distillation_loss_coef = 1.0;
  std::optional<double> loss_max_clamp;
  std::optional<double> log_prob_min_clamp;
  bool use_policy_gradient = false;
  std::string policy_loss_mode = "vanilla";
  double clip_ratio = 0.2;
  std::optional<double> clip_ratio_low = 0.2;
  std::optional<double> clip_ratio_high = 0.2;
  double clip_ratio_c = 3.0;
};

// Whether loss_mode is forward_kl_topk (needs teacher top-k) rather than an estimator mode.
// Throws verlpp::Error listing the valid modes for an unknown one.
bool distillation_uses_topk(const std::string& loss_mode);

// verl's DistillationLossConfig checks: a known loss_mode, policy_loss_mode == vanilla, and not
// k1/kl without use_policy_gradient (k1's gradient does not depend on the teacher).
void validate_distillation_loss_config(const DistillationLossConfig& config);

struct TopkDivergence {
  at::Tensor divergence;  // [batch, response_length], float32 or float64, differentiable in logits
  // distillation/student_mass (sum of student probs at the teacher's ids), teacher_mass, their
  // _min/_max, overlap_ratio (mean |teacher top-k ∩ student top-k| / k), overlap_token_advantage
  // (mean over a token's shared ids of -p·(log p - log q), 0 without one; verl, arXiv
  // 2604.13016); over unmasked tokens (the extremes +inf / -inf without any: algo::Aggregation
  // takes them over micro-batches and ranks).
  Metrics metrics;
};

// log q = log_softmax(student_logits / temperature) at the teacher's top-k ids, log p = teacher
// top-k log-probs; with log_prob_min_clamp both are clamped from below; D = sum_k exp(log p)*(log
// p - log q), computed in float32 at least (float64 stays float64), then max(D, 0). Masses are
// taken before the clamp.
TopkDivergence forward_kl_topk(const at::Tensor& student_logits, const at::Tensor& teacher_ids,
                               const at::Tensor& teacher_logprobs, const at::Tensor& response_mask,
                               double temperature = 1.0,
                               std::optional<double> log_prob_min_clamp = std::nullopt);

// The same from the student's log-probs already gathered at the teacher's ids ([batch,
// response_length, k], differentiable; the trainer's chunked lm-head pass,
// model::chunked_logprobs_at_ids) and the student's own top-k ids (for overlap_ratio).
TopkDivergence forward_kl_topk_at_ids(const at::Tensor& student_log_q,
                                      const at::Tensor& student_top_ids,
                                      const at::Tensor& teacher_ids,
                                      const at::Tensor& teacher_logprobs,
                                      const at::Tensor& response_mask,
                                      std::optional<double> log_prob_min_clamp = std::nullopt);

struct DistillationLossResult {
  at::Tensor loss;  // 0-dim
  // distillation/loss, distillation/loss_min, distillation/loss_max, distillation/abs_loss
  // (masked mean of |D|; all three taken before loss_max_clamp, as verl; the extremes +inf / -inf
  // without response tokens) and, with use_policy_gradient, the renamed PPO metrics.
  Metrics metrics;
};

// From a per-token divergence D (an estimator's, or forward_kl_topk's). With use_policy_gradient,
// log_prob (the student's, differentiated) and old_log_prob are required.
DistillationLossResult distillation_loss(const at::Tensor& divergence,
                                         const at::Tensor& response_mask,
                                         const DistillationLossConfig& config,
                                         const std::string& loss_agg_mode,
                                         const GlobalBatchInfo& info = {},
                                         const at::Tensor& log_prob = {},
                                         const at::Tensor& old_log_prob = {});

// Estimator modes end to end: D = kl_penalty(log_prob, teacher_log_prob, config.loss_mode), then
// distillation_loss. Throws verlpp::Error for forward_kl_topk (use forward_kl_topk).
DistillationLossResult distillation_loss_from_log_probs(
    const at::Tensor& log_prob, const at::Tensor& teacher_log_prob, const at::Tensor& response_mask,
    const DistillationLossConfig& config, const std::string& loss_agg_mode,
    const GlobalBatchInfo& info = {}, const at::Tensor& old_log_prob = {});

// The actor's loss with distillation (verl: distillation_ppo_loss; verl.md §4 "Combining"):
//   use_task_rewards:  ppo_loss(in, actor) + distillation_loss_coef × distillation loss
//   otherwise:         the distillation loss alone (coef 1); ppo_loss is still evaluated, for its
//                      metrics only, with use_policy_gradient, and skipped without it.
// divergence: D [batch, response_length] (an estimator's of in.policy.log_prob, or
// forward_kl_topk's), differentiable. Metrics: the distillation metrics, those of ppo_loss when
// evaluated, and loss (the total). Throws verlpp::Error as ppo_loss and distillation_loss do.
PolicyLossResult distillation_ppo_loss(const ActorLossInputs& in, const at::Tensor& divergence,
                                       const ActorLossConfig& actor,
                                       const DistillationLossConfig& config,
                                       const GlobalBatchInfo& info = {});

}  // namespace verlpp::algo
