#include "verlpp/model/layers/self_attention.h"

#include <ATen/ATen.h>

#include "verlpp/model/layers/rms_norm.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

void declare_self_attention(WeightTable& table, const std::string& prefix, int64_t layer,
                            AttentionWeights& w, const ModelConfig& c) {
  const int64_t q = c.num_attention_heads * c.head_dim;
  const int64_t kv = c.num_key_value_heads * c.head_dim;
  const std::string q_from = "num_attention_heads * head_dim, hidden_size";
  const std::string kv_from = "num_key_value_heads * head_dim, hidden_size";
  declare_linear(table, prefix + "q_proj", layer, w.q_proj, q, c.hidden_size, c.qkv_bias, q_from);
  declare_linear(table, prefix + "k_proj", layer, w.k_proj, kv, c.hidden_size, c.qkv_bias, kv_from);
  declare_linear(table, prefix + "v_proj", layer, w.v_proj, kv, c.hidden_size, c.qkv_bias, kv_from);
  declare_linear(table, prefix + "o_proj", layer, w.o_proj, c.hidden_size, q, c.o_bias,
                 "hidden_size, num_attention_heads * head_dim");
  if (c.qk_norm) {
    table.add({prefix + "q_norm.weight",
               {c.head_dim},
               WeightInit::ones,
               layer,
               0,
               "head_dim",
               {},
               &w.q_norm});
    table.add({prefix + "k_norm.weight",
               {c.head_dim},
               WeightInit::ones,
               layer,
               0,
               "head_dim",
               {},
               &w.k_norm});
  }
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const LayerContext& ctx, int64_t layer) {
  if (ctx.state != nullptr) {
    KVCacheView& cache = ctx.state->layers.at(static_cast<size_t>(layer));
    cache.keys.index_copy_(0, ctx.cache_rows, k);
    cache.values.index_copy_(0, ctx.cache_rows, v);
    if (ctx.decode != nullptr) {
      return decode_attention(q, cache, ctx.state->capacity, *ctx.decode, ctx.scale);
    }
    if (ctx.context != nullptr) {
      const ContextKeys& keys = *ctx.context;
      return causal_attention_with_context(q, cache.keys.index_select(0, keys.rows),
                                           cache.values.index_select(0, keys.rows), ctx.layout,
                                           keys.layout, ctx.scale);
    }
  }
  return causal_attention(q, k, v, ctx.layout, ctx.scale);
}

at::Tensor rope_and_attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           const LayerContext& ctx, int64_t layer, const kernels::QkNorm& qk_norm) {
  if (ctx.state != nullptr && ctx.decode != nullptr) {
    KVCacheView& cache = ctx.state->layers.at(static_cast<size_t>(layer));
    const RopeTables& rope = ctx.rope;
    if (kernels::can_rope_cache_write(q, k, v, rope.cos, rope.sin_signed, ctx.cache_rows,
                                      cache.keys, cache.values, qk_norm)) {
      const at::Tensor q_rotated = kernels::rope_cache_write(
          q, k, v, rope.cos, rope.sin_signed, ctx.cache_rows, cache.keys, cache.values, qk_norm);
      return decode_attention(q_rotated, cache, ctx.state->capacity, *ctx.decode, ctx.scale);
    }
  }
  const bool norm = qk_norm.q_weight.defined();
  const at::Tensor qn = norm ? rms_norm(q, qk_norm.q_weight, qk_norm.eps) : q;
  const at::Tensor kn = norm ? rms_norm(k, qk_norm.k_weight, qk_norm.eps) : k;
  return attend(apply_rope(qn, ctx.rope), apply_rope(kn, ctx.rope), v, ctx, layer);
}

at::Tensor self_attention(const AttentionWeights& w, const ModelConfig& c, const at::Tensor& h,
                          const LayerContext& ctx, int64_t layer) {
  const int64_t T = h.size(0);
  const at::Tensor q = w.q_proj(h).view({T, c.num_attention_heads, c.head_dim});
  const at::Tensor k = w.k_proj(h).view({T, c.num_key_value_heads, c.head_dim});
  const at::Tensor v = w.v_proj(h).view({T, c.num_key_value_heads, c.head_dim});
  kernels::QkNorm qk_norm;
  if (c.qk_norm) qk_norm = {w.q_norm, w.k_norm, c.rms_norm_eps};
  const at::Tensor a = rope_and_attend(q, k, v, ctx, layer, qk_norm);
  return w.o_proj(a.reshape({T, c.num_attention_heads * c.head_dim}));
}

void declare_attention_block(WeightTable& table, const std::string& prefix, int64_t layer,
                             AttentionBlockWeights& w, const ModelConfig& c) {
  table.add({prefix + "input_layernorm.weight",
             {c.hidden_size},
             WeightInit::ones,
             layer,
             0,
             "hidden_size",
             {},
             &w.input_layernorm});
  declare_self_attention(table, prefix + "self_attn.", layer, w.attention, c);
  table.add({prefix + "post_attention_layernorm.weight",
             {c.hidden_size},
             WeightInit::ones,
             layer,
             0,
             "hidden_size",
             {},
             &w.post_attention_layernorm});
}

AttentionBlockOutput attention_block(const AttentionBlockWeights& w, const ModelConfig& c,
                                     const at::Tensor& x, const LayerContext& ctx, int64_t layer) {
  const at::Tensor h = rms_norm(x, w.input_layernorm, c.rms_norm_eps);
  const AddNorm r = add_rms_norm(x, self_attention(w.attention, c, h, ctx, layer),
                                 w.post_attention_layernorm, c.rms_norm_eps);
  return {r.sum, r.normed};
}

}  // namespace verlpp::model
