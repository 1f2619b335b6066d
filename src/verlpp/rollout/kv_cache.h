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

// The paged form, with the blocks and state slots kv_cache_manager.h hands out: every attention
// layer's keys and values [num_blocks * block_size, kv_heads, head_dim] (block b is rows
// [b * block_size, (b + 1) * block_size)), every linear-attention layer's conv and recurrent
// states in state_slots slots. The view's capacity is 0: rows come from block tables.
class PagedKVCache {
 public:
  // Throws verlpp::Error when num_blocks, block_size or state_slots is negative, or block_size <
  // 1.
  PagedKVCache(const std::vector<model::LayerStateSpec>& layers, int64_t num_blocks,
               int64_t block_size, int64_t state_slots, at::ScalarType dtype,
               const at::Device& device);

  int64_t block_size() const { return block_size_; }
  // Copies blocks src[i] to dst[i] in every attention layer, and state slots src[i] to dst[i] in
  // every linear-attention layer ([N] int64 on the cache's device each; dst distinct, disjoint
  // from src).
  void copy_blocks(const at::Tensor& src, const at::Tensor& dst);
  void copy_state_slots(const at::Tensor& src, const at::Tensor& dst);
  model::GenerationStateView& view() { return view_; }

 private:
  model::GenerationStateView view_;
  int64_t block_size_;
};

}  // namespace verlpp::rollout
