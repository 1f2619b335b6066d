#include "verlpp/model/arch/qwen3_moe.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/model/layers/rms_norm.h"

namespace verlpp::model {

Qwen3MoeDecoder::Qwen3MoeDecoder(const ModelConfig& c) : Decoder(c) {
  layers_.resize(static_cast<size_t>(c.num_hidden_layers));
  declare_embedding();
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    Layer& l = layers_[static_cast<size_t>(i)];
    const std::string p = fmt::format("model.layers.{}.", i);
    table_.add({p + "input_layernorm.weight",
                {c.hidden_size},
                WeightInit::ones,
                i,
                0,
                "hidden_size",
                {},
                &l.input_layernorm});
    declare_self_attention(table_, p + "self_attn.", i, l.attention, c);
    table_.add({p + "post_attention_layernorm.weight",
                {c.hidden_size},
                WeightInit::ones,
                i,
                0,
                "hidden_size",
                {},
                &l.post_attention_layernorm});
    l.sparse = c.is_sparse_layer(i);
    if (l.sparse) {
      declare_moe(table_, p + "mlp.", i, l.moe, c);
    } else {
      declare_mlp(table_, p + "mlp.", i, l.mlp, c.hidden_size, c.intermediate_size, false);
    }
  }
  declare_head();
}

LayerOutput Qwen3MoeDecoder::layer(int64_t layer, const at::Tensor& x,
                                   const LayerContext& ctx) const {
  const Layer& l = layers_[static_cast<size_t>(layer)];
  const at::Tensor h = rms_norm(x, l.input_layernorm, config_.rms_norm_eps);
  const at::Tensor x1 = x + self_attention(l.attention, config_, h, ctx, layer);
  const at::Tensor m = rms_norm(x1, l.post_attention_layernorm, config_.rms_norm_eps);
  if (!l.sparse) return {x1 + swiglu(l.mlp, m), at::Tensor()};
  const MoeOutput moe = sparse_moe(l.moe, config_.moe, m);
  return {x1 + moe.hidden, ctx.router_logits ? moe.router_logits : at::Tensor()};
}

}  // namespace verlpp::model
