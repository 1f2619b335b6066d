// Calls around a forward pass and each decoder layer, for an engine that keeps the weights
// somewhere else between uses (engine/fsdp: sharded over ranks, gathered layer by layer). The
// model knows nothing of how; it only calls. Units: -1 is the root (embedding, final norm,
// lm_head), 0..L-1 the decoder layers.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::model {

class LayerHooks {
 public:
  virtual ~LayerHooks() = default;
  // Before the embedding: the root's weights must be usable until the engine releases them.
  virtual void before_forward() = 0;
  // Before decoder layer `layer` reads its weights.
  virtual void before_layer(std::int64_t layer) = 0;
  // After the layer computed `hidden` (and, for a sparse MoE layer asked for them,
  // `router_logits`, else undefined): the outputs through which its backward will be reached.
  virtual void after_layer(std::int64_t layer, const at::Tensor& hidden,
                           const at::Tensor& router_logits) = 0;
};

}  // namespace verlpp::model
