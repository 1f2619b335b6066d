#include "verlpp/model/layers/gated_attention.h"

#include <ATen/ATen.h>

#include "verlpp/model/layers/rms_norm.h"
#include "verlpp/model/layers/self_attention.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

void declare_gated_attention(WeightTable& table, const std::string& prefix, int64_t layer,
                             GatedAttentionWeights& w, const ModelConfig& c) {
  const int64_t q = c.num_attention_heads * c.head_dim;
  const int64_t kv = c.num_key_value_heads * c.head_dim;
  const std::string kv_from = "num_key_value_heads * head_dim, hidden_size";
  declare_linear(table, prefix + "q_proj", layer, w.q_proj, 2 * q, c.hidden_size, c.qkv_bias,
                 "2 * num_attention_heads * head_dim (query and gate), hidden_size");
  declare_linear(table, prefix + "k_proj", layer, w.k_proj, kv, c.hidden_size, c.qkv_bias, kv_from);
  declare_linear(table, prefix + "v_proj", layer, w.v_proj, kv, c.hidden_size, c.qkv_bias, kv_from);
  declare_linear(table, prefix + "o_proj", layer, w.o_proj, c.hidden_size, q, c.o_bias,
                 "hidden_size, num_attention_heads * head_dim");
  for (auto [name, tensor] :
       {std::pair{"q_norm.weight", &w.q_norm}, {"k_norm.weight", &w.k_norm}}) {
    table.add({prefix + name, {c.head_dim}, WeightInit::zeros, layer, 0, "head_dim", {}, tensor});
  }
}

at::Tensor gated_attention(const GatedAttentionWeights& w, const ModelConfig& c,
                           const at::Tensor& h, const LayerContext& ctx, int64_t layer) {
  const int64_t T = h.size(0);
  const int64_t H = c.num_attention_heads, d = c.head_dim;
  const at::Tensor query_gate = w.q_proj(h).view({T, H, 2 * d});
  const at::Tensor gate = query_gate.narrow(-1, d, d).reshape({T, H * d});
  const at::Tensor q =
      zero_centered_rms_norm(query_gate.narrow(-1, 0, d), w.q_norm, c.rms_norm_eps);
  const at::Tensor k = zero_centered_rms_norm(w.k_proj(h).view({T, c.num_key_value_heads, d}),
                                              w.k_norm, c.rms_norm_eps);
  const at::Tensor v = w.v_proj(h).view({T, c.num_key_value_heads, d});
  const at::Tensor a = rope_and_attend(q, k, v, ctx, layer).reshape({T, H * d});
  return w.o_proj(a * at::sigmoid(gate));
}

}  // namespace verlpp::model
