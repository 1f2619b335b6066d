// verl's SFT loss (verl/workers/utils/losses.py::sft_loss; verl.md §8.2): the global token-mean
// negative log-likelihood of the tokens the loss mask marks,
//   loss = −Σ_micro Σ_t log p(x_{t+1} | x_≤t) · loss_mask_{t+1} / batch_num_tokens,
// where batch_num_tokens counts the marked tokens of the whole optimizer step (all
// micro-batches), so gradient accumulation over micro-batches gives exactly the step's token mean.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "verlpp/data/sft_dataset.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::trainer {

// Sequences packed one after another for CausalLM::forward_packed, with the positions whose next
// token is learned.
struct PackedSft {
  at::Tensor input_ids;     // int64 [T]
  at::Tensor position_ids;  // int64 [T], 0.. within each sequence
  at::Tensor cu_seqlens;    // int32 [S+1]
  at::Tensor predict_at;    // int64 [K]: positions t (t+1 in the same sequence, mask_{t+1} = 1)
  at::Tensor targets;       // int64 [K]: input_ids[t+1]
};

// Packs `examples` (on `device`). The first token of a sequence is never a target.
PackedSft pack_sft(const std::vector<const data::SftExample*>& examples, const at::Device& device);

// −Σ log p(targets) / batch_num_tokens for one packed micro-batch: a differentiable fp32 scalar.
at::Tensor sft_micro_loss(const model::CausalLM& model, const PackedSft& packed,
                          double batch_num_tokens);

}  // namespace verlpp::trainer
