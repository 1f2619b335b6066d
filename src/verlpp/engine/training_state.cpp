#include "verlpp/engine/training_state.h"

#include <fmt/format.h>

#include <algorithm>

#include "verlpp/core/log.h"

namespace verlpp::engine {
namespace {

fsdp::TrainingStateBytes replicated_bytes(const std::vector<at::Tensor>& parameters) {
  fsdp::TrainingStateBytes out;
  for (const auto& p : parameters) {
    out.parameters += p.numel() * static_cast<std::int64_t>(p.element_size());
  }
  out.gradients = out.parameters;
  return out;
}

}  // namespace

TrainingState make_training_state(const std::string& role, model::CausalLM& model,
                                  std::vector<std::pair<std::string, at::Tensor>> extra,
                                  const std::vector<std::string>& frozen, const AdamWConfig& optim,
                                  std::int64_t total_training_steps, const dist::Communicator& dp,
                                  const std::optional<fsdp::FsdpSettings>& sharding) {
  const auto is_frozen = [&](const std::string& name) {
    return std::find(frozen.begin(), frozen.end(), name) != frozen.end();
  };
  model.set_requires_grad(true);
  for (auto& [name, tensor] : model.named_parameters()) {
    if (is_frozen(name)) tensor.set_requires_grad(false);
  }
  for (auto& [name, tensor] : extra) tensor.requires_grad_(true);
  TrainingState state;
  fsdp::TrainingStateBytes bytes;
  if (sharding) {
    state.sharded = fsdp::ShardedModel::shard(model, extra, frozen, dp, *sharding);
    state.optimizer = std::make_unique<Optimizer>(state.sharded, optim, total_training_steps);
    bytes = state.sharded->state_bytes();
  } else {
    std::vector<at::Tensor> parameters;
    for (auto& [name, tensor] : model.named_parameters()) {
      if (!is_frozen(name)) parameters.push_back(tensor);
    }
    for (auto& [name, tensor] : extra) parameters.push_back(tensor);
    state.optimizer = std::make_unique<Optimizer>(parameters, optim, total_training_steps, dp);
    bytes = replicated_bytes(parameters);
  }
  log_note(fmt::format(
      "{}: training state on rank {} of {} ({}): parameters {} B, gradients {} B, optimizer {} B",
      role, dp.rank(), dp.size(), state.sharded ? state.sharded->layout() : "replicated",
      bytes.parameters, bytes.gradients, state.optimizer->state_bytes()));
  return state;
}

}  // namespace verlpp::engine
