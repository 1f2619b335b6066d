// Qwen3.5's gated full attention (transformers' Qwen3_5Attention; models.md §2): q_proj computes
// each head's query and output gate side by side ([q_h | gate_h] blocks of head_dim per head),
// zero-centred RMSNorms of q and k over head_dim, partial RoPE, causal GQA attention (over the
// layout, or the KV cache in generation), the output times sigmoid(gate) in the model dtype, then
// o_proj.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "verlpp/model/layers/layer_context.h"
#include "verlpp/model/layers/linear.h"
#include "verlpp/model/model_config.h"

namespace verlpp::model {

class WeightTable;

struct GatedAttentionWeights {
  Linear q_proj;              // [2 * heads * head_dim, hidden]
  Linear k_proj, v_proj;      // [kv_heads * head_dim, hidden]
  Linear o_proj;              // [hidden, heads * head_dim]
  at::Tensor q_norm, k_norm;  // [head_dim], offsets from 1 (init 0)
};

// Declares PREFIX{q,k,v,o}_proj.weight (biases with attention_bias) and PREFIX{q,k}_norm.weight.
void declare_gated_attention(WeightTable& table, const std::string& prefix, int64_t layer,
                             GatedAttentionWeights& w, const ModelConfig& config);

// h [T, hidden] (the input_layernorm output) -> [T, hidden]; the KV cache of layer `layer` as
// self_attention (attend).
at::Tensor gated_attention(const GatedAttentionWeights& w, const ModelConfig& config,
                           const at::Tensor& h, const LayerContext& ctx, int64_t layer);

}  // namespace verlpp::model
