// What a trained model needs on this rank besides the model: its shards when sharded
// (engine/fsdp/sharded_model.h) and the optimizer over them, or the optimizer over the whole
// model when it is replicated (one rank, or fsdp_size 1).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/dist/communicator.h"
#include "verlpp/engine/fsdp/sharded_model.h"
#include "verlpp/engine/optimizer.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::engine {

struct TrainingState {
  std::shared_ptr<fsdp::ShardedModel> sharded;  // null when replicated
  std::unique_ptr<Optimizer> optimizer;
};

// Makes `model` (and `extra`, trained tensors outside it, such as a value head) trainable, except
// the parameters named in `frozen` (no gradient, not optimised, never sharded), and builds its
// state: sharded over `dp` when `sharding` is set (also over one rank, for param_offload). Logs, as
// `role`, the bytes of parameters, gradients and optimizer state this rank holds between steps
// (parameters and gradients in the model dtype when replicated; shards in the model dtype and
// fp32 gradient shards when sharded).
TrainingState make_training_state(const std::string& role, model::CausalLM& model,
                                  std::vector<std::pair<std::string, at::Tensor>> extra,
                                  const std::vector<std::string>& frozen, const AdamWConfig& optim,
                                  std::int64_t total_training_steps, const dist::Communicator& dp,
                                  const std::optional<fsdp::FsdpSettings>& sharding);

}  // namespace verlpp::engine
