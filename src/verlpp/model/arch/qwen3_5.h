// Qwen3.5 and Qwen3.5-MoE text decoders (transformers' modeling_qwen3_5.py and
// modeling_qwen3_5_moe.py; models.md §2-§4): per layer, as config.layer_types says, Gated DeltaNet
// linear attention or gated full attention, then a dense SwiGLU (Qwen3.5) or the sparse block
// with a sigmoid-gated shared expert (Qwen3.5-MoE, every layer); pre-norm residuals with
// zero-centred (1 + w) RMSNorms, the final norm included.
#pragma once

#include <vector>

#include "verlpp/model/arch/decoder.h"
#include "verlpp/model/layers/gated_attention.h"
#include "verlpp/model/layers/gated_deltanet.h"
#include "verlpp/model/layers/mlp.h"
#include "verlpp/model/layers/moe.h"

namespace verlpp::model {

class Qwen3_5Decoder : public Decoder {
 public:
  explicit Qwen3_5Decoder(const ModelConfig& config);
  LayerOutput layer(int64_t layer, const at::Tensor& x, const LayerContext& ctx) const override;
  at::Tensor final_norm(const at::Tensor& x) const override;
  // KV caches for full-attention layers, conv and recurrent state for linear-attention ones.
  std::vector<LayerStateSpec> generation_state() const override;
  // Dense, or a sparse block without host synchronisation (sparse_moe_capturable).
  bool decode_capturable() const override;

 private:
  struct Layer {
    bool linear = false;
    GatedDeltaNetWeights linear_attn;                      // linear layers
    GatedAttentionWeights self_attn;                       // full-attention layers
    MlpWeights mlp;                                        // Qwen3.5
    MoeWeights moe;                                        // Qwen3.5-MoE
    SharedExpertWeights shared;                            // Qwen3.5-MoE
    at::Tensor input_layernorm, post_attention_layernorm;  // [hidden], offsets from 1
  };
  std::vector<Layer> layers_;
};

}  // namespace verlpp::model
