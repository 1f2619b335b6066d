// What a model keeps between the steps of incremental decoding, split as vLLM and llama.cpp split
// it: each layer of the model declares the state it needs (LayerStateSpec); the rollout engine
// allocates and sizes the storage (rollout/kv_cache.h) and hands the model views of it. Today every
// layer is attention and needs a KV cache; other kinds (a recurrent state for linear attention)
// join as new LayerStateKinds.
//
// Storage layout seen through a view: a sequence owns one slot of `capacity` entries; entry
// (slot, i) holds its token i and is row slot * capacity + i of each layer's flat
// [slots * capacity, kv_heads, head_dim] keys and values.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace verlpp::model {

enum class LayerStateKind { kv_cache };

struct LayerStateSpec {
  LayerStateKind kind = LayerStateKind::kv_cache;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
};

// One attention layer's keys and values: [slots * capacity, kv_heads, head_dim] each, in the
// model's dtype and on its device.
struct KVCacheView {
  at::Tensor keys;
  at::Tensor values;
};

// Every layer's state, indexed like the model's layers.
struct GenerationStateView {
  int64_t slots = 0;
  int64_t capacity = 0;
  std::vector<KVCacheView> layers;
};

// Where one decode step reads: sequence n (one query token each) attends to entries
// [0, lengths[n]) of its slot, the new token's own entry included.
struct DecodeView {
  at::Tensor slot_starts;  // [N] int64: slot * capacity
  at::Tensor lengths;      // [N] int64, on the cache's device
  int64_t max_length = 0;  // host upper bound of lengths (<= capacity)
  // For flash attention (bf16/fp16 CUDA): [N + 1] int32 slot starts then slots * capacity, and
  // lengths as int32. Undefined when not used.
  at::Tensor cu_starts_i32;
  at::Tensor lengths_i32;
};

}  // namespace verlpp::model
