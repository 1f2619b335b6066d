// The critic worker for GAE (verl: verl/workers/critic/dp_critic.py; value loss verl.md §3.6).
// The value model is verl's AutoModelForTokenClassification with num_labels = 1: the causal LM's
// trunk (its lm_head unused) and a linear head "score" (weight [1, hidden_size], bias [1]) on the
// final-norm hidden states. The value of response column t is read at column P + t - 1, as for
// log-probs (verl: values = logits[:, -R - 1 : -1]), and is 0 where the response is padding.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/algo/metrics.h"
#include "verlpp/data/batch.h"
#include "verlpp/dist/communicator.h"
#include "verlpp/engine/micro_batches.h"
#include "verlpp/engine/optimizer.h"
#include "verlpp/engine/training_state.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::engine {

class MetricAccumulator;

struct CriticSettings {
  bool remove_padding = true;        // critic.model.use_remove_padding
  MicroBatching forward_micro;       // forward_micro_batch_size_per_gpu / token budget
  MicroBatching update_micro;        // ppo_micro_batch_size_per_gpu / ppo_max_token_len_per_gpu
  std::int64_t mini_batch_rows = 1;  // ppo_mini_batch_size × rollout.n
  std::int64_t ppo_epochs = 1;
  double cliprange_value = 0.5;
  std::string loss_agg_mode = "token-mean";
  std::optional<double> loss_scale_factor;
  // The data-parallel ranks: update_critic gets this rank's slice, as Actor::update_policy does.
  dist::Communicator dp;
  std::optional<fsdp::FsdpSettings> sharding;  // shard trunk and head over dp, as the actor
};

struct ValueHead {
  at::Tensor weight;  // [1, hidden_size], the model dtype
  at::Tensor bias;    // [1]
};

// transformers' init of a fresh head: weight ~ N(0, std^2) from a CPU generator seeded `seed`,
// bias 0, in `dtype` on `device`.
ValueHead init_value_head(std::int64_t hidden_size, double std, std::uint64_t seed,
                          at::ScalarType dtype, const at::Device& device);

class Critic {
 public:
  // Builds the optimizer over the trunk's parameters (lm_head excluded) and the head.
  Critic(model::CausalLM trunk, ValueHead head, CriticSettings settings, const AdamWConfig& optim,
         std::int64_t total_training_steps);

  model::CausalLM& trunk() { return trunk_; }
  const model::CausalLM& trunk() const { return trunk_; }
  const ValueHead& head() const { return head_; }
  Optimizer& optimizer() { return *state_.optimizer; }
  const Optimizer& optimizer() const { return *state_.optimizer; }
  fsdp::ShardedModel* sharded() const { return state_.sharded.get(); }

  // fp32 [B, R] values, no gradients (verl's compute_values).
  at::Tensor compute_values(const data::Batch& batch) const;

  // Needs input_ids, attention_mask, responses, response_mask, values, returns. Returns
  // critic/vf_loss (summed over micro-batches, averaged over mini-batches), critic/vf_clipfrac,
  // critic/vpred_mean (averaged over micro-batches), critic/grad_norm and critic/lr.
  algo::Metrics update_critic(const data::Batch& batch);

  // The head as value_head/model.safetensors ("score.weight", "score.bias") in `folder`; load
  // throws verlpp::Error naming the file when it is missing or its shapes differ. When sharded,
  // save_head needs the weights gathered (ShardedModel::gather_all) and load_head is not used
  // (the optimizer's masters restore the head).
  void save_head(const std::filesystem::path& folder) const;
  void load_head(const std::filesystem::path& folder);

 private:
  at::Tensor forward_values(const data::Batch& micro) const;
  void update_mini_batch(const data::Batch& mini, MetricAccumulator& metrics);

  model::CausalLM trunk_;
  ValueHead head_;
  CriticSettings settings_;
  TrainingState state_;
};

}  // namespace verlpp::engine
