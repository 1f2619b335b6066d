#include "verlpp/model/arch/qwen3_moe.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

namespace verlpp::model {

Qwen3MoeDecoder::Qwen3MoeDecoder(const ModelConfig& c) : Decoder(c) {
  layers_.resize(static_cast<size_t>(c.num_hidden_layers));
  declare_embedding();
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    Layer& l = layers_[static_cast<size_t>(i)];
    const std::string p = fmt::format("model.layers.{}.", i);
    declare_attention_block(table_, p, i, l.attention, c);
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
  const AttentionBlockOutput a = attention_block(l.attention, config_, x, ctx, layer);
  if (!l.sparse) return {a.residual + swiglu(l.mlp, a.mlp_input), at::Tensor()};
  const MoeOutput moe = sparse_moe(l.moe, config_.moe, a.mlp_input);
  return {a.residual + moe.hidden, ctx.router_logits ? moe.router_logits : at::Tensor()};
}

bool Qwen3MoeDecoder::decode_capturable() const { return sparse_moe_capturable(); }

}  // namespace verlpp::model
