#include "verlpp/model/arch/dense_decoder.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/model/layers/rms_norm.h"

namespace verlpp::model {

DenseDecoder::DenseDecoder(const ModelConfig& c) : Decoder(c) {
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
    declare_mlp(table_, p + "mlp.", i, l.mlp, c.hidden_size, c.intermediate_size, c.mlp_bias);
  }
  declare_head();
}

LayerOutput DenseDecoder::layer(int64_t layer, const at::Tensor& x, const LayerContext& ctx) const {
  const Layer& l = layers_[static_cast<size_t>(layer)];
  const at::Tensor h = rms_norm(x, l.input_layernorm, config_.rms_norm_eps);
  const at::Tensor x1 = x + self_attention(l.attention, config_, h, ctx, layer);
  const at::Tensor m = rms_norm(x1, l.post_attention_layernorm, config_.rms_norm_eps);
  return {x1 + swiglu(l.mlp, m), at::Tensor()};
}

}  // namespace verlpp::model
