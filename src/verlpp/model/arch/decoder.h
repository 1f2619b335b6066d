// The interface between the generic causal LM (model/causal_lm.h) and one architecture: a Decoder
// owns an architecture's weights, declares each of them once in its WeightTable, and computes one
// decoder layer. Token embedding, the final norm and the output projection are common to every
// architecture here and live in the base class. An architecture is a file in model/arch/ with a
// Decoder subclass, plus its line in make_decoder (arch/registry.cpp) and in the config registry
// (model_config.cpp); docs/model.md lists the steps.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "verlpp/model/generation_state.h"
#include "verlpp/model/layers/layer_context.h"
#include "verlpp/model/model_config.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

class Decoder {
 public:
  explicit Decoder(const ModelConfig& config) : config_(config) {}
  virtual ~Decoder() = default;
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  const ModelConfig& config() const { return config_; }
  const WeightTable& weights() const { return table_; }

  // Layer `layer` on x [T, hidden_size] (the residual stream) -> the next residual stream.
  virtual LayerOutput layer(int64_t layer, const at::Tensor& x, const LayerContext& ctx) const = 0;
  // The final norm before the output projection (default: rms_norm with `norm`).
  virtual at::Tensor final_norm(const at::Tensor& x) const;
  // The state each layer keeps during generation (default: a KV cache of the attention shape).
  virtual std::vector<LayerStateSpec> generation_state() const;
  // Whether a decode step may be captured into a CUDA graph (verified for the dense decoders).
  virtual bool decode_capturable() const { return true; }

  at::Tensor embed_tokens;  // [vocab, hidden]
  at::Tensor norm;          // [hidden], the final RMSNorm
  at::Tensor lm_head;       // [vocab, hidden]; undefined when tie_word_embeddings

 protected:
  // Declares model.embed_tokens.weight (first) or model.norm.weight (random init `norm_init`)
  // and lm_head.weight (last).
  void declare_embedding();
  void declare_head(WeightInit norm_init = WeightInit::ones);

  ModelConfig config_;
  WeightTable table_;
};

// The Decoder of config.architecture (the registry of implementations).
std::unique_ptr<Decoder> make_decoder(const ModelConfig& config);

}  // namespace verlpp::model
