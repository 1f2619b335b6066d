#include "verlpp/engine/scorer.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include <utility>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/engine/response_forward.h"
#include "verlpp/model/logprob.h"

namespace verlpp::engine {

namespace {

// Frees the weights a sharded pass left gathered (the root unit) when the pass ends, also when it
// throws.
struct ReshardAtExit {
  fsdp::ShardedModel* sharded;
  ~ReshardAtExit() {
    if (sharded) sharded->reshard();
  }
};

}  // namespace

Scorer::Scorer(std::string role, model::CausalLM model, ScorerSettings settings,
               const dist::Communicator& group)
    : role_(std::move(role)), model_(std::move(model)), settings_(std::move(settings)) {
  model_.set_requires_grad(false);
  if (!settings_.sharding) return;
  sharded_ = fsdp::ShardedModel::shard(model_, {}, {}, group, *settings_.sharding);
  log_note(fmt::format("{}: parameters on rank {} of {} ({}{}): {} B", role_, group.rank(),
                       group.size(), sharded_->layout(),
                       settings_.sharding->param_offload ? ", on the CPU" : "", parameter_bytes()));
}

std::int64_t Scorer::parameter_bytes() const {
  if (sharded_) return sharded_->state_bytes().parameters;
  std::int64_t bytes = 0;
  for (const auto& [name, p] : model_.named_parameters()) {
    bytes += p.numel() * static_cast<std::int64_t>(p.element_size());
  }
  return bytes;
}

dist::Communicator Scorer::count_group() const {
  return sharded_ ? sharded_->group() : dist::Communicator{};
}

at::Tensor Scorer::log_probs(const data::Batch& batch) const {
  const ReshardAtExit reshard{sharded_.get()};
  return compute_log_prob(model_, batch, settings_.micro, settings_.forward, false, count_group())
      .log_probs;
}

ResponseTopk Scorer::topk(const data::Batch& batch, std::int64_t k) const {
  const std::int64_t vocab = model_.lm_head_weight().size(0);
  if (k < 1 || k > vocab) {
    throw Error(fmt::format("{}: top-k {} must be between 1 and the model's vocabulary size {}",
                            role_, k, vocab));
  }
  c10::AutoGradMode no_grad(false);
  const ReshardAtExit reshard{sharded_.get()};
  std::vector<at::Tensor> ids, log_probs;
  const auto pieces =
      micro_batch_indices(batch.tensor("attention_mask"), settings_.micro, count_group());
  for (const auto& rows : pieces) {
    const ResponseHidden where =
        response_hidden(model_, batch.select(rows), settings_.forward.remove_padding);
    const model::TopkLogProbs top =
        model::chunked_topk_logprobs(where.hidden, model_.lm_head_weight(), k,
                                     settings_.forward.temperature, settings_.forward.chunk_tokens);
    ids.push_back(scatter_to_grid(top.ids, where));
    log_probs.push_back(scatter_to_grid(top.logprobs, where));
  }
  return {in_batch_order(ids, pieces), in_batch_order(log_probs, pieces)};
}

at::Tensor Scorer::reverse_kl(const data::Batch& batch, const model::CausalLM& student,
                              double student_temperature) const {
  c10::AutoGradMode no_grad(false);
  const ReshardAtExit reshard{sharded_.get()};
  const bool packed = settings_.forward.remove_padding;
  std::vector<at::Tensor> grids;
  const auto pieces =
      micro_batch_indices(batch.tensor("attention_mask"), settings_.micro, count_group());
  for (const auto& rows : pieces) {
    const data::Batch piece = batch.select(rows);
    const ResponseHidden s = response_hidden(student, piece, packed);
    const ResponseHidden t = response_hidden(model_, piece, packed);
    const at::Tensor kl = model::chunked_kl_divergence(
        s.hidden, student.lm_head_weight(), student_temperature, t.hidden, model_.lm_head_weight(),
        settings_.forward.temperature, settings_.forward.chunk_tokens);
    grids.push_back(scatter_to_grid(kl, s));
  }
  return in_batch_order(grids, pieces);
}

}  // namespace verlpp::engine
