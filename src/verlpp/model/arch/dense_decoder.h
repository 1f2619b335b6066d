// Dense decoders: Qwen2/Qwen2.5, Qwen3 and Llama 2/3 (transformers' modeling_qwen2.py,
// modeling_qwen3.py, modeling_llama.py; the families differ only in flags of ModelConfig: q/k/v
// biases, q/k norms). Layer i: h += self_attention(rms(h)); h += swiglu(rms(h)).
#pragma once

#include <vector>

#include "verlpp/model/arch/decoder.h"
#include "verlpp/model/layers/mlp.h"
#include "verlpp/model/layers/self_attention.h"

namespace verlpp::model {

class DenseDecoder : public Decoder {
 public:
  explicit DenseDecoder(const ModelConfig& config);
  LayerOutput layer(int64_t layer, const at::Tensor& x, const LayerContext& ctx) const override;

 private:
  struct Layer {
    AttentionBlockWeights attention;
    MlpWeights mlp;
  };
  std::vector<Layer> layers_;
};

}  // namespace verlpp::model
