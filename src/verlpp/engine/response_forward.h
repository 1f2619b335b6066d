// The forward pass shared by the actor, the reference policy and the critic: the hidden states that
// predict each response token. For a batch with prompts of width P and responses of width R, the
// token at response column t is predicted by the hidden state at column P + t - 1 (verl's actor and
// critic slice logits[:, P - 1 : P + R - 1]; verl/workers/actor/dp_actor.py, critic/dp_critic.py).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "verlpp/data/batch.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::engine {

struct ResponseHidden {
  at::Tensor hidden;      // [N, hidden_size] in the model dtype; N = response tokens to score
  at::Tensor flat_index;  // int64 [N]: row * R + column of each token in the [B, R] response grid
  at::Tensor targets;     // int64 [N]: the response token ids
  std::int64_t rows = 0;  // B
  std::int64_t response_length = 0;  // R
  // With `router_logits`: each sparse MoE layer's router logits [tokens, E] over every real token
  // of the batch (prompts and responses), differentiable; empty for a dense model.
  std::vector<at::Tensor> router_logits;
};

// Reads tensors input_ids, attention_mask ([B, P + R]), responses ([B, R]) and position_ids
// (optional; cumsum(mask) - 1 when absent). The tokens scored are those with
// attention_mask[:, P:] != 0. remove_padding selects the packed forward (verl's
// use_remove_padding: only real tokens go through the model) over the padded one; both give the
// same values. Rows with images (per-row tensors pixel_values [patches, C T P P] and
// image_grid_thw int64 [images, 3], data/rl_dataset.h) always take the packed forward, with their
// M-RoPE positions computed from the tokens and grids (position_ids is not read for them).
// Throws verlpp::Error for missing or mis-shaped tensors (from Batch), images without a vision
// tower, or a row whose image pad runs do not match its grids (naming the row).
ResponseHidden response_hidden(const model::CausalLM& model, const data::Batch& batch,
                               bool remove_padding, bool router_logits = false);

// Scatters per-token values [N, ...] (any dtype, differentiable) into a [B, R, ...] grid of zeros.
at::Tensor scatter_to_grid(const at::Tensor& values, const ResponseHidden& where);

}  // namespace verlpp::engine
