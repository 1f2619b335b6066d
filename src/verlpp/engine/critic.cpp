#include "verlpp/engine/critic.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/GradMode.h>

#include <utility>

#include "verlpp/algo/value_loss.h"
#include "verlpp/core/error.h"
#include "verlpp/engine/metric_accumulator.h"
#include "verlpp/engine/mini_batch.h"
#include "verlpp/engine/response_forward.h"
#include "verlpp/model/checkpoint.h"

namespace verlpp::engine {
namespace {

// The critic trains its trunk without the output projection, and the value head.
TrainingState critic_state(model::CausalLM& trunk, const ValueHead& head,
                           const CriticSettings& settings, const AdamWConfig& optim,
                           std::int64_t total_training_steps) {
  return make_training_state(
      "critic", trunk, {{"score.weight", head.weight}, {"score.bias", head.bias}},
      {"lm_head.weight"}, optim, total_training_steps, settings.dp, settings.sharding);
}

}  // namespace

ValueHead init_value_head(std::int64_t hidden_size, double std, std::uint64_t seed,
                          at::ScalarType dtype, const at::Device& device) {
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  ValueHead head;
  head.weight =
      at::normal(0.0, std, {1, hidden_size}, generator).to(device, dtype).set_requires_grad(true);
  head.bias = at::zeros({1}, at::TensorOptions(dtype).device(device)).set_requires_grad(true);
  return head;
}

Critic::Critic(model::CausalLM trunk, ValueHead head, CriticSettings settings,
               const AdamWConfig& optim, std::int64_t total_training_steps)
    : trunk_(std::move(trunk)),
      head_(std::move(head)),
      settings_(std::move(settings)),
      state_(critic_state(trunk_, head_, settings_, optim, total_training_steps)) {}

at::Tensor Critic::forward_values(const data::Batch& micro) const {
  const ResponseHidden where = response_hidden(trunk_, micro, settings_.remove_padding);
  const at::Tensor values = at::linear(where.hidden, head_.weight, head_.bias).reshape({-1});
  return scatter_to_grid(values.to(at::kFloat), where);
}

at::Tensor Critic::compute_values(const data::Batch& batch) const {
  c10::AutoGradMode no_grad(false);
  std::vector<at::Tensor> parts;
  const auto pieces =
      micro_batch_indices(batch.tensor("attention_mask"), settings_.forward_micro, settings_.dp);
  for (const auto& rows : pieces) parts.push_back(forward_values(batch.select(rows)));
  if (state_.sharded) state_.sharded->reshard();
  return in_batch_order(parts, pieces);
}

algo::Metrics Critic::update_critic(const data::Batch& batch) {
  MetricAccumulator metrics;
  const double lr = optimizer().lr();
  const std::int64_t mini_rows =
      local_mini_batch_rows(settings_.mini_batch_rows, settings_.dp, "critic");
  for (std::int64_t epoch = 0; epoch < settings_.ppo_epochs; ++epoch) {
    for (const auto& mini : batch.split(mini_rows)) update_mini_batch(mini, metrics);
  }
  optimizer().advance_lr();
  algo::Metrics out =
      reduce_over_ranks(metrics.combined("critic/"), settings_.dp, {"critic/vf_loss"}, "critic/");
  out["critic/lr"] = lr;
  return out;
}

void Critic::update_mini_batch(const data::Batch& mini, MetricAccumulator& metrics) {
  const algo::GlobalBatchInfo info =
      global_mini_batch(mini, settings_.dp, settings_.loss_scale_factor).info;
  const auto device = trunk_.device();
  double vf_loss = 0;
  optimizer().zero_grad();
  for (const auto& rows :
       micro_batch_indices(mini.tensor("attention_mask"), settings_.update_micro, settings_.dp)) {
    const data::Batch micro = mini.select(rows);
    const algo::ValueLossResult result = algo::compute_value_loss(
        forward_values(micro), micro.tensor("returns").to(device),
        micro.tensor("values").to(device), micro.tensor("response_mask").to(device),
        settings_.cliprange_value, settings_.loss_agg_mode, info);
    result.loss.backward();
    if (state_.sharded) state_.sharded->finish_backward();
    for (const auto& [key, value] : result.metrics) {
      if (key == "vf_loss") {
        vf_loss += value;
      } else {
        metrics.append(key, value);
      }
    }
  }
  metrics.append("vf_loss", vf_loss);
  metrics.append("grad_norm", optimizer().step().grad_norm);
}

void Critic::save_head(const std::filesystem::path& folder) const {
  model::write_checkpoint(
      (folder / "value_head").string(),
      {{"score.weight", head_.weight.detach().cpu()}, {"score.bias", head_.bias.detach().cpu()}});
}

void Critic::load_head(const std::filesystem::path& folder) {
  const model::CheckpointReader reader((folder / "value_head").string());
  c10::AutoGradMode no_grad(false);
  const std::vector<std::pair<std::string, at::Tensor*>> targets{{"score.weight", &head_.weight},
                                                                 {"score.bias", &head_.bias}};
  for (const auto& [name, target] : targets) {
    const at::Tensor stored = reader.tensor(name);
    if (stored.sizes() != target->sizes()) {
      throw Error(reader.dir() + ": '" + name + "' has another shape than this critic's head");
    }
    target->copy_(stored);
  }
}

}  // namespace verlpp::engine
