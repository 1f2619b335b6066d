#include "verlpp/engine/actor.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <set>
#include <utility>

#include "verlpp/algo/kl_penalty.h"
#include "verlpp/engine/metric_accumulator.h"
#include "verlpp/engine/mini_batch.h"

namespace verlpp::engine {
namespace {

// Metrics that are partial sums of the mini-batch loss (global-batch normalisation): summed over
// micro-batches, then averaged over mini-batches.
const std::set<std::string>& loss_metrics() {
  static const std::set<std::string> keys{"pg_loss", "entropy_loss", "kl_loss", "loss",
                                          "distillation/loss"};
  return keys;
}

data::Batch epoch_order(const data::Batch& batch, const ActorSettings& settings,
                        at::Generator& generator) {
  if (!settings.shuffle) return batch;
  const at::Tensor perm = at::randperm(batch.size(), generator, at::TensorOptions(at::kLong));
  const auto* p = perm.data_ptr<std::int64_t>();
  return batch.select(std::vector<std::int64_t>(p, p + perm.numel()));
}

}  // namespace

Actor::Actor(model::CausalLM model, ActorSettings settings, const AdamWConfig& optim,
             std::int64_t total_training_steps)
    : model_(std::move(model)),
      settings_(std::move(settings)),
      state_(make_training_state("actor", model_, {}, {}, optim, total_training_steps, settings_.dp,
                                 settings_.sharding)) {}

LogProbOutput Actor::compute_log_prob(const data::Batch& batch, bool with_entropy) const {
  LogProbOutput out = engine::compute_log_prob(model_, batch, settings_.log_prob_micro,
                                               settings_.forward, with_entropy, settings_.dp);
  if (state_.sharded) state_.sharded->reshard();
  return out;
}

void Actor::gather_weights() {
  if (state_.sharded) state_.sharded->gather_all();
}

void Actor::release_weights() {
  if (state_.sharded) state_.sharded->reshard();
}

algo::Metrics Actor::update_policy(const data::Batch& batch) {
  MetricAccumulator metrics;
  const double lr = optimizer().lr();
  // verl's engine seeds each data-parallel rank's shuffle with seed + dp rank.
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(
      static_cast<std::uint64_t>(settings_.data_loader_seed + settings_.dp.rank()));
  const std::int64_t mini_rows =
      local_mini_batch_rows(settings_.mini_batch_rows, settings_.dp, "actor");
  for (std::int64_t epoch = 0; epoch < settings_.ppo_epochs; ++epoch) {
    const data::Batch ordered = epoch_order(batch, settings_, generator);
    for (const auto& mini : ordered.split(mini_rows)) update_mini_batch(mini, metrics);
  }
  optimizer().advance_lr();
  std::set<std::string> summed;
  for (const auto& key : loss_metrics()) summed.insert("actor/" + key);
  algo::Metrics out = reduce_over_ranks(metrics.combined("actor/"), settings_.dp, summed, "actor/");
  out["actor/lr"] = lr;
  return out;
}

double Actor::moe_aux_loss_coeff() const {
  if (!settings_.add_moe_aux_loss) return 0.0;
  return settings_.moe_aux_loss_coeff.value_or(model_.config().moe.router_aux_loss_coef);
}

void Actor::update_mini_batch(const data::Batch& mini, MetricAccumulator& metrics) {
  const GlobalMiniBatch global = global_mini_batch(mini, settings_.dp, settings_.loss_scale_factor);
  const algo::GlobalBatchInfo& info = global.info;
  const bool with_entropy = settings_.calculate_entropy || settings_.loss.entropy_coeff != 0;
  const bool moe = model_.config().moe.num_experts > 0;
  const double aux_coeff = moe_aux_loss_coeff();
  algo::Metrics sums;
  optimizer().zero_grad();
  const bool topk =
      settings_.distillation && algo::distillation_uses_topk(settings_.distillation->loss_mode);
  for (const auto& rows :
       micro_batch_indices(mini.tensor("attention_mask"), settings_.update_micro, settings_.dp)) {
    const data::Batch micro = mini.select(rows);
    const LogProbOutput current =
        forward_log_prob(model_, micro, settings_.forward, with_entropy, moe,
                         topk ? micro.tensor("teacher_topk_ids") : at::Tensor());
    algo::PolicyLossResult result = micro_batch_loss(micro, current, info);
    at::Tensor loss = result.loss;
    if (current.moe_aux_loss.defined()) {
      result.metrics["moe_aux_loss"] = current.moe_aux_loss.item<double>();
      if (aux_coeff != 0.0) {
        const double share = static_cast<double>(current.tokens) / global.tokens;
        loss = loss + aux_coeff * share * current.moe_aux_loss;
      }
    }
    loss.backward();
    if (state_.sharded) state_.sharded->finish_backward();
    result.metrics["loss"] = result.loss.item<double>();
    for (const auto& [key, value] : result.metrics) {
      if (loss_metrics().count(key)) {
        sums[key] += value;
      } else {
        metrics.append(key, value);
      }
    }
  }
  metrics.append_all(sums);
  metrics.append("grad_norm", optimizer().step().grad_norm);
}

algo::PolicyLossResult Actor::micro_batch_loss(const data::Batch& micro,
                                               const LogProbOutput& current,
                                               const algo::GlobalBatchInfo& info) const {
  const auto device = model_.device();
  algo::ActorLossInputs in;
  in.policy.log_prob = current.log_probs;
  in.policy.old_log_prob = micro.tensor("old_log_probs").to(device);
  in.policy.advantages = micro.tensor("advantages").to(device);
  in.policy.response_mask = micro.tensor("response_mask").to(device);
  if (micro.has_tensor("rollout_is_weights")) {
    in.policy.rollout_is_weights = micro.tensor("rollout_is_weights").to(device);
  }
  if (current.entropy.defined()) in.entropy = current.entropy;
  if (settings_.loss.use_kl_loss) in.ref_log_prob = micro.tensor("ref_log_prob").to(device);
  if (!settings_.distillation) return algo::ppo_loss(in, settings_.loss, info);
  const algo::DistillationLossConfig& d = *settings_.distillation;
  if (!algo::distillation_uses_topk(d.loss_mode)) {
    const at::Tensor teacher = micro.tensor("teacher_log_prob").to(device);
    return algo::distillation_ppo_loss(
        in, algo::kl_penalty(current.log_probs, teacher, d.loss_mode), settings_.loss, d, info);
  }
  const algo::TopkDivergence divergence = algo::forward_kl_topk_at_ids(
      current.gathered, current.top_ids, micro.tensor("teacher_topk_ids").to(device),
      micro.tensor("teacher_topk_log_probs").to(device), in.policy.response_mask,
      d.log_prob_min_clamp);
  algo::PolicyLossResult result =
      algo::distillation_ppo_loss(in, divergence.divergence, settings_.loss, d, info);
  result.metrics.insert(divergence.metrics.begin(), divergence.metrics.end());
  return result;
}

}  // namespace verlpp::engine
