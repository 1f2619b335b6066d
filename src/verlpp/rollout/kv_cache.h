// The rollout's generation state storage (model/generation_state.h): preallocated once for a batch,
// per layer the state its LayerStateSpec asks for, a sequence owning one slot: keys and values
// [slots * capacity, kv_heads, head_dim] for attention layers, conv and recurrent states for
// linear-attention ones (model/generation_state.h), on the model's device.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "verlpp/model/generation_state.h"

namespace verlpp::rollout {

class KVCache {
 public:
  // Throws verlpp::Error when slots < 1 or capacity < 1.
  KVCache(const std::vector<model::LayerStateSpec>& layers, int64_t slots, int64_t capacity,
          at::ScalarType dtype, const at::Device& device);

  int64_t slots() const { return view_.slots; }
  int64_t capacity() const { return view_.capacity; }
  // Copies slot src[i]'s state into slot dst[i] ([N] int64 each, on the cache's device; dst
  // distinct and disjoint from src): the first `length` entries of every attention layer, the
  // conv window and recurrent state of every linear-attention layer (rows sharing a prompt
  // start from its prefill).
  void copy_slots(const at::Tensor& src, const at::Tensor& dst, int64_t length);
  // What the model reads and writes (prefill, decode).
  model::GenerationStateView& view() { return view_; }
  const model::GenerationStateView& view() const { return view_; }

 private:
  model::GenerationStateView view_;
};

}  // namespace verlpp::rollout
