// A frozen model that scores responses without gradients: the worker behind the reference policy
// (ref_log_prob; verl: the ref role of verl/workers/fsdp_workers.py) and the on-policy
// distillation teachers (verl: verl/experimental/teacher_loop, which asks vLLM for the
// prompt_logprobs of prompt + response; verl.md §4 "Teacher query"). One class for both: they
// differ only in what they are asked.
//
// Micro-batched by `micro` (rows or token budget, the count equalised over the data-parallel
// ranks as micro_batch_indices does). Never materialises [tokens, vocab] logits beyond one chunk
// of forward.chunk_tokens rows (model::chunked_topk_logprobs).
//
// Sharded (the reference policy of several ranks, or of one with param_offload, verl wrapping the
// ref in FSDP as it wraps the actor, with ref.fsdp_config; a single distillation teacher colocated
// with the students of several ranks): each rank keeps its 1/W of every weight between passes
// (engine/fsdp/sharded_model.h; on the CPU with param_offload) and a pass gathers one layer at a
// time, freeing it after the layer; every rank of the group must then ask together (the micro-batch
// counts are equalised over the group, so the ranks' rows may differ).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "verlpp/data/batch.h"
#include "verlpp/dist/communicator.h"
#include "verlpp/engine/fsdp/sharded_model.h"
#include "verlpp/engine/log_prob.h"
#include "verlpp/engine/micro_batches.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::engine {

struct ScorerSettings {
  ForwardSettings forward;  // the ref: the rollout temperature; a teacher: 1.0 (verl's query)
  MicroBatching micro;
  std::optional<fsdp::FsdpSettings> sharding;  // over the constructor's group; nullopt: whole
};

// Top-k of each response position: ids int64 and log-probs fp32 [B, R, k], largest first; rows
// and columns beyond a response's end hold id 0 and log-prob 0.
struct ResponseTopk {
  at::Tensor ids;
  at::Tensor log_probs;
};

class Scorer {
 public:
  // `role` names the scorer in errors and logs ("ref", "teacher teacher_model"). Freezes the
  // model's parameters; with settings.sharding shards them over `group` (every rank of it
  // constructs its Scorer together) and logs the bytes this rank keeps. Throws verlpp::Error from
  // fsdp::ShardedModel::shard for a parameter it cannot shard.
  Scorer(std::string role, model::CausalLM model, ScorerSettings settings,
         const dist::Communicator& group = {});

  const std::string& role() const { return role_; }
  // When sharded, the model's weights are freed between passes.
  const model::CausalLM& model() const { return model_; }
  const ScorerSettings& settings() const { return settings_; }
  // Bytes of weights this rank keeps between passes: its shards when sharded, else the model's.
  std::int64_t parameter_bytes() const;

  // Log-probs fp32 [B, R] of the batch's response tokens (input_ids, attention_mask, responses;
  // position_ids optional), 0 beyond each response, on the model's device.
  at::Tensor log_probs(const data::Batch& batch) const;

  // The k most probable tokens at every response position. Throws verlpp::Error naming the role
  // when k is not between 1 and the vocabulary size.
  ResponseTopk topk(const data::Batch& batch, std::int64_t k) const;

  // fp32 [B, R] on the student's device, 0 beyond each response: at every response token
  // KL(student || this model) over the whole vocabulary (model::chunked_kl_divergence), the student
  // (full weights) at `student_temperature`, this model at forward.temperature; no gradients,
  // micro-batched by `micro`.
  at::Tensor reverse_kl(const data::Batch& batch, const model::CausalLM& student,
                        double student_temperature) const;

  bool sharded() const { return sharded_ != nullptr; }

 private:
  // The ranks whose micro-batch counts must match: the sharding group, else this rank alone.
  dist::Communicator count_group() const;

  std::string role_;
  model::CausalLM model_;
  ScorerSettings settings_;
  std::shared_ptr<fsdp::ShardedModel> sharded_;  // null when whole
};

}  // namespace verlpp::engine
