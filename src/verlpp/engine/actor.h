// The actor worker (verl: verl/workers/actor/dp_actor.py DataParallelPPOActor, with the loss and
// normalisation of verl/workers/utils/losses.py ppo_loss; verl.md §3.4-3.5): old log-prob
// recomputation and the PPO policy update on one device.
//
// update_policy: for each of ppo_epochs passes, the batch is cut into mini-batches of
// ppo_mini_batch_size × rollout.n rows (shuffled first when actor.shuffle, seeded with
// data_loader_seed); each mini-batch zeroes the gradients, runs its micro-batches (rows or token
// budget), backpropagates each micro-batch's loss, normalised with the mini-batch's global counts
// (valid response tokens, rows) so that the accumulated gradient equals the whole mini-batch's,
// and takes one optimizer step. The learning-rate schedule advances once per call.
//
// Data parallel (settings.dp of several ranks; distributed.md §1.4-1.7): the batch given to
// update_policy is this rank's contiguous slice; its mini-batches are mini_batch_rows / dp rows,
// the loss is normalised by the token and row counts of the global mini-batch (all-reduced), the
// optimizer sums the gradients over the ranks, and the metrics are combined over them
// (reduce_over_ranks). The result equals one rank updating on the whole batch. With
// settings.sharding the parameters, gradients and optimizer state are sharded over the ranks
// (engine/fsdp/sharded_model.h): forward passes gather layer by layer, every backward ends with
// the gradients' reduce-scatter, and gather_weights() gives the rollout the full model.
//
// MoE models: each micro-batch's load-balancing loss (transformers' definition over its real
// tokens, model::load_balancing_loss) is logged as actor/moe_aux_loss (mean over micro-batches).
// It joins the loss only where verl would add it: never under FSDP (verl's dp_actor ignores the
// model's aux_loss) and under Megatron only with override_transformer_config.
// moe_router_load_balancing_type=aux_loss (verl sets none), as coeff * aux * (micro-batch tokens /
// mini-batch tokens), coeff = moe_aux_loss_coeff or else the model's router_aux_loss_coef.
#pragma once

#include <cstdint>
#include <optional>

#include "verlpp/algo/actor_loss.h"
#include "verlpp/algo/distillation.h"
#include "verlpp/algo/metrics.h"
#include "verlpp/data/batch.h"
#include "verlpp/dist/communicator.h"
#include "verlpp/engine/log_prob.h"
#include "verlpp/engine/micro_batches.h"
#include "verlpp/engine/optimizer.h"
#include "verlpp/engine/training_state.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::engine {

class MetricAccumulator;

struct ActorSettings {
  ForwardSettings forward;
  MicroBatching log_prob_micro;  // rollout.log_prob_micro_batch_size_per_gpu / token budget
  MicroBatching update_micro;    // actor.ppo_micro_batch_size_per_gpu / ppo_max_token_len_per_gpu
  std::int64_t mini_batch_rows = 1;  // ppo_mini_batch_size × rollout.n
  std::int64_t ppo_epochs = 1;
  bool shuffle = false;
  std::int64_t data_loader_seed = 42;
  bool calculate_entropy = false;  // entropy in the update even when entropy_coeff is 0
  algo::ActorLossConfig loss;
  std::optional<double> loss_scale_factor;
  bool add_moe_aux_loss = false;             // see above
  std::optional<double> moe_aux_loss_coeff;  // default: config.json's router_aux_loss_coef
  // On-policy distillation (distillation.enabled): the loss is algo::distillation_ppo_loss with
  // the divergence from the batch's teacher_log_prob [B, R] (estimator modes) or
  // teacher_topk_ids / teacher_topk_log_probs [B, R, k] (forward_kl_topk).
  std::optional<algo::DistillationLossConfig> distillation;
  dist::Communicator dp;                       // the data-parallel ranks (default: one)
  std::optional<fsdp::FsdpSettings> sharding;  // shard over dp (fsdp_size = the world)
};

class Actor {
 public:
  // Makes the model trainable and builds the optimizer over all its parameters.
  Actor(model::CausalLM model, ActorSettings settings, const AdamWConfig& optim,
        std::int64_t total_training_steps);

  model::CausalLM& model() { return model_; }
  const model::CausalLM& model() const { return model_; }
  Optimizer& optimizer() { return *state_.optimizer; }
  const Optimizer& optimizer() const { return *state_.optimizer; }
  const ActorSettings& settings() const { return settings_; }
  // The shards when sharded, else null.
  fsdp::ShardedModel* sharded() const { return state_.sharded.get(); }
  // Full weights in the model until release_weights() (all-gathered unit by unit when sharded;
  // nothing to do otherwise): the rollout's weight hand-off.
  void gather_weights();
  void release_weights();

  // old_log_prob (and entropy) of every response token, no gradients.
  LogProbOutput compute_log_prob(const data::Batch& batch, bool with_entropy) const;

  // Needs tensors input_ids, attention_mask, responses, response_mask, old_log_probs, advantages
  // (and ref_log_prob with use_kl_loss, the teacher's tensors with distillation). Returns verl's
  // actor/* metrics: loss-type metrics (pg_loss, entropy_loss, kl_loss, loss,
  // distillation/loss) summed over a mini-batch's micro-batches and averaged
  // over mini-batches; pg_clipfrac, ppo_kl, pg_clipfrac_lower, kl_coef averaged over
  // micro-batches; grad_norm averaged over mini-batches; lr the rate this update used;
  // moe_aux_loss for MoE models.
  // Throws verlpp::Error for a missing tensor, or when the data-parallel size does not divide
  // mini_batch_rows.
  algo::Metrics update_policy(const data::Batch& batch);

 private:
  void update_mini_batch(const data::Batch& mini, MetricAccumulator& metrics);
  algo::PolicyLossResult micro_batch_loss(const data::Batch& micro, const LogProbOutput& current,
                                          const algo::GlobalBatchInfo& info) const;
  double moe_aux_loss_coeff() const;  // 0 when the aux loss is not added

  model::CausalLM model_;
  ActorSettings settings_;
  TrainingState state_;
};

}  // namespace verlpp::engine
