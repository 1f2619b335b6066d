#include "verlpp/model/arch/qwen3_5.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/model/layers/rms_norm.h"

namespace verlpp::model {

Qwen3_5Decoder::Qwen3_5Decoder(const ModelConfig& c) : Decoder(c) {
  layers_.resize(static_cast<size_t>(c.num_hidden_layers));
  declare_embedding();
  for (int64_t i = 0; i < c.num_hidden_layers; ++i) {
    Layer& l = layers_[static_cast<size_t>(i)];
    const std::string p = fmt::format("model.layers.{}.", i);
    l.linear = c.is_linear_attention_layer(i);
    if (l.linear) {
      declare_gated_deltanet(table_, p + "linear_attn.", i, l.linear_attn, c);
    } else {
      declare_gated_attention(table_, p + "self_attn.", i, l.self_attn, c);
    }
    if (c.moe.num_experts > 0) {
      declare_moe(table_, p + "mlp.", i, l.moe, c);
      declare_shared_expert(table_, p + "mlp.", i, l.shared, c);
    } else {
      declare_mlp(table_, p + "mlp.", i, l.mlp, c.hidden_size, c.intermediate_size, false);
    }
    for (auto [name, tensor] : {std::pair{"input_layernorm.weight", &l.input_layernorm},
                                {"post_attention_layernorm.weight", &l.post_attention_layernorm}}) {
      table_.add({p + name, {c.hidden_size}, WeightInit::zeros, i, 0, "hidden_size", {}, tensor});
    }
  }
  declare_head(WeightInit::zeros);
}

LayerOutput Qwen3_5Decoder::layer(int64_t layer, const at::Tensor& x,
                                  const LayerContext& ctx) const {
  const Layer& l = layers_[static_cast<size_t>(layer)];
  const double eps = config_.rms_norm_eps;
  const at::Tensor h = zero_centered_rms_norm(x, l.input_layernorm, eps);
  const at::Tensor mixed = l.linear ? gated_deltanet(l.linear_attn, config_, h, ctx, layer)
                                    : gated_attention(l.self_attn, config_, h, ctx, layer);
  const AddNorm r = add_zero_centered_rms_norm(x, mixed, l.post_attention_layernorm, eps);
  const at::Tensor& residual = r.sum;
  const at::Tensor& m = r.normed;
  if (config_.moe.num_experts == 0) return {residual + swiglu(l.mlp, m), at::Tensor()};
  const MoeOutput moe = sparse_moe(l.moe, config_.moe, m);
  return {residual + (moe.hidden + shared_expert(l.shared, m)),
          ctx.router_logits ? moe.router_logits : at::Tensor()};
}

at::Tensor Qwen3_5Decoder::final_norm(const at::Tensor& x) const {
  return zero_centered_rms_norm(x, norm, config_.rms_norm_eps);
}

std::vector<LayerStateSpec> Qwen3_5Decoder::generation_state() const {
  std::vector<LayerStateSpec> specs = Decoder::generation_state();
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i].linear) specs[i] = gated_deltanet_state(config_);
  }
  return specs;
}

bool Qwen3_5Decoder::decode_capturable() const {
  return config_.moe.num_experts == 0 || sparse_moe_capturable();
}

}  // namespace verlpp::model
