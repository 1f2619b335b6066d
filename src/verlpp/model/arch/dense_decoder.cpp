#include "verlpp/model/arch/dense_decoder.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

namespace verlpp::model {

DenseDecoder::DenseDecoder(const ModelConfig& c) : Decoder(c) {
  layers_.resize(static_cast<size_t>(c.num_hidden_layers));
  declare_embedding();
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    Layer& l = layers_[static_cast<size_t>(i)];
    const std::string p = fmt::format("model.layers.{}.", i);
    declare_attention_block(table_, p, i, l.attention, c);
    declare_mlp(table_, p + "mlp.", i, l.mlp, c.hidden_size, c.intermediate_size, c.mlp_bias);
  }
  declare_head();
}

LayerOutput DenseDecoder::layer(int64_t layer, const at::Tensor& x, const LayerContext& ctx) const {
  const Layer& l = layers_[static_cast<size_t>(layer)];
  const AttentionBlockOutput a = attention_block(l.attention, config_, x, ctx, layer);
  return {a.residual + swiglu(l.mlp, a.mlp_input), at::Tensor()};
}

}  // namespace verlpp::model
