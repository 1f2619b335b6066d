// The self-attention block of Llama, Qwen2, Qwen3 and Qwen3-MoE (transformers' LlamaAttention,
// Qwen2Attention, Qwen3Attention, Qwen3MoeAttention): q/k/v projections, Qwen3's per-head RMSNorm
// of q and k, RoPE, causal GQA attention (over the layout, or the KV cache in generation), o_proj.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "verlpp/kernels/rope_cache_write.h"
#include "verlpp/model/layers/layer_context.h"
#include "verlpp/model/layers/linear.h"
#include "verlpp/model/model_config.h"

namespace verlpp::model {

class WeightTable;

struct AttentionWeights {
  Linear q_proj, k_proj, v_proj, o_proj;
  at::Tensor q_norm, k_norm;  // [head_dim] when config.qk_norm
};

// Declares PREFIX{q,k,v,o}_proj.weight ([heads * head_dim, hidden], [kv_heads * head_dim,
// hidden] twice, [hidden, heads * head_dim]), their biases per qkv_bias / o_bias, and
// PREFIX{q,k}_norm.weight [head_dim] with qk_norm.
void declare_self_attention(WeightTable& table, const std::string& prefix, int64_t layer,
                            AttentionWeights& w, const ModelConfig& config);

// Attention of q [T, heads, d] over k, v [T, kv_heads, d] for layer `layer`: with ctx.state, first
// stores k and v at ctx.cache_rows of the layer's cache; with ctx.decode, attends over the cache
// (decode_attention), with ctx.context over the cached keys it names and the tokens' own
// (causal_attention_with_context), else over the tokens themselves (causal_attention over
// ctx.layout).
at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const LayerContext& ctx, int64_t layer);

// attend over q and k after their rotary embedding (ctx.rope), each first normalised per head by
// qk_norm where its weights are defined (rms_norm: Qwen3's q_norm and k_norm). In a decode step on
// CUDA the norm, the embedding and the cache write run as one kernel (kernels/rope_cache_write.h,
// bit-identical to rms_norm, apply_rope and index_copy_).
at::Tensor rope_and_attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           const LayerContext& ctx, int64_t layer,
                           const kernels::QkNorm& qk_norm = {});

// h [T, hidden] (the input_layernorm output) -> [T, hidden]. With ctx.state, stores the tokens'
// keys/values of layer `layer` at ctx.cache_rows; with ctx.decode, attends over the cache.
at::Tensor self_attention(const AttentionWeights& w, const ModelConfig& config, const at::Tensor& h,
                          const LayerContext& ctx, int64_t layer);

// The attention half of a pre-norm Llama/Qwen decoder layer and the norm in front of its MLP:
//   residual = x + self_attention(rms(x, input_layernorm)),
//   mlp_input = rms(residual, post_attention_layernorm).
struct AttentionBlockWeights {
  at::Tensor input_layernorm, post_attention_layernorm;  // [hidden]
  AttentionWeights attention;
};
struct AttentionBlockOutput {
  at::Tensor residual, mlp_input;  // [T, hidden]
};

// Declares PREFIX input_layernorm.weight, PREFIX self_attn.*, PREFIX
// post_attention_layernorm.weight (in that order, transformers' parameter order).
void declare_attention_block(WeightTable& table, const std::string& prefix, int64_t layer,
                             AttentionBlockWeights& w, const ModelConfig& config);

AttentionBlockOutput attention_block(const AttentionBlockWeights& w, const ModelConfig& config,
                                     const at::Tensor& x, const LayerContext& ctx, int64_t layer);

}  // namespace verlpp::model
