// What every decoder layer of one forward pass shares: RoPE tables of the tokens' positions, the
// sequence layout attention needs, and in generation the state view (prefill writes each token's
// keys/values at cache_rows; a decode step also reads the cache through `decode`).
#pragma once

#include <ATen/core/Tensor.h>

#include "verlpp/model/generation_state.h"
#include "verlpp/model/layers/attention.h"
#include "verlpp/model/layers/rope.h"

namespace verlpp::model {

struct LayerContext {
  RopeTables rope;
  SequenceLayout layout;
  double scale = 1.0;  // attention scale, head_dim^-0.5
  GenerationStateView* state = nullptr;
  at::Tensor cache_rows;  // [T] int64 flat cache rows of the tokens (with state)
  const DecodeView* decode = nullptr;
  bool router_logits = false;  // MoE layers return their router logits
};

// One layer's result: hidden [T, hidden_size], and for a sparse MoE layer asked for them its
// router logits [T, num_experts] in the model dtype (undefined otherwise).
struct LayerOutput {
  at::Tensor hidden;
  at::Tensor router_logits;
};

}  // namespace verlpp::model
