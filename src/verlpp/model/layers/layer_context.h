// What every decoder layer of one forward pass shares: RoPE tables of the tokens' positions, the
// sequence layout attention needs (and for Gated DeltaNet layers the chunked delta-rule layout),
// and in generation the state view (prefill writes each token's keys/values at cache_rows and each
// sequence's recurrent state at its slot; a decode step also reads the state through `decode`, a
// prefill of sequences with cached tokens through `context`).
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <vector>

#include "verlpp/model/generation_state.h"
#include "verlpp/model/layers/attention.h"
#include "verlpp/model/layers/delta_rule.h"
#include "verlpp/model/layers/rope.h"

namespace verlpp::model {

// What a prefill of continuing sequences reads (PrefillContext). Attention layers: the keys'
// cache rows and their packing (each sequence's earlier tokens, then the prefill's own). Gated
// DeltaNet layers: each sequence continues from its slot's conv window and recurrent state
// (`continues` [S] bool, true for a sequence with earlier tokens, false for one starting fresh,
// whose slot holds nothing of it); the short convolution runs over every sequence preceded by its
// window (conv_window rows, zeros for a fresh one): conv_source_rows [T + S * conv_window] picks
// those rows from cat(tokens, windows), conv_layout is that extended packing and
// conv_token_rows [T] the tokens' rows in it.
struct ContextKeys {
  SequenceLayout layout;
  at::Tensor rows;  // [keys] int64 on the model's device
  at::Tensor continues;
  at::Tensor conv_source_rows;
  at::Tensor conv_token_rows;
  std::shared_ptr<const DeltaRuleLayout> conv_layout;  // null without linear-attention layers
};

struct LayerContext {
  RopeTables rope;
  SequenceLayout layout;
  double scale = 1.0;  // attention scale, head_dim^-0.5
  GenerationStateView* state = nullptr;
  at::Tensor cache_rows;  // [T] int64 flat cache rows of the tokens (with state)
  // Models with linear-attention layers, outside decode: the layout's sequences (padded: one per
  // row) in the delta rule's chunked form.
  std::shared_ptr<const DeltaRuleLayout> delta_rule;
  at::Tensor sequence_slots;  // prefill: [S] int64, the state slot of each sequence
  const DecodeView* decode = nullptr;
  const ContextKeys* context = nullptr;  // prefill after cached tokens: attention reads the cache
  bool router_logits = false;            // MoE layers return their router logits
};

// One layer's result: hidden [T, hidden_size], and for a sparse MoE layer asked for them its
// router logits [T, num_experts] in the model dtype (undefined otherwise).
struct LayerOutput {
  at::Tensor hidden;
  at::Tensor router_logits;
};

}  // namespace verlpp::model
