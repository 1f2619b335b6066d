// Qwen3-MoE (transformers' modeling_qwen3_moe.py; models.md §1): Qwen3's attention with q/k
// norms, then per layer either the sparse MoE block (layers where ModelConfig::is_sparse_layer) or
// a dense SwiGLU of intermediate_size (mlp_only_layers, decoder_sparse_step). No shared expert.
#pragma once

#include <vector>

#include "verlpp/model/arch/decoder.h"
#include "verlpp/model/layers/mlp.h"
#include "verlpp/model/layers/moe.h"
#include "verlpp/model/layers/self_attention.h"

namespace verlpp::model {

class Qwen3MoeDecoder : public Decoder {
 public:
  explicit Qwen3MoeDecoder(const ModelConfig& config);
  LayerOutput layer(int64_t layer, const at::Tensor& x, const LayerContext& ctx) const override;
  // When the sparse block has no host synchronisation (sparse_moe_capturable).
  bool decode_capturable() const override;

 private:
  struct Layer {
    AttentionBlockWeights attention;
    bool sparse = false;
    MoeWeights moe;  // sparse layers
    MlpWeights mlp;  // dense layers
  };
  std::vector<Layer> layers_;
};

}  // namespace verlpp::model
