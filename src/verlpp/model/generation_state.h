// What a model keeps between the steps of incremental decoding, split as vLLM and llama.cpp split
// it: each layer of the model declares the state it needs (LayerStateSpec); the rollout engine
// allocates and sizes the storage (rollout/kv_cache.h) and hands the model views of it (llama.cpp's
// hybrid memory: attention layers keep a KV cache, Gated DeltaNet layers a fixed-size recurrent
// state, side by side).
//
// Storage layout seen through a view: a sequence owns one slot. In an attention layer the slot
// has `capacity` entries; entry (slot, i) holds its token i and is row slot * capacity + i of the
// layer's flat [slots * capacity, kv_heads, head_dim] keys and values. In a linear-attention layer
// the slot is row `slot` of its conv and recurrent states.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace verlpp::model {

enum class LayerStateKind { kv_cache, linear_attention };

struct LayerStateSpec {
  LayerStateKind kind = LayerStateKind::kv_cache;
  int64_t kv_heads = 0;  // kv_cache
  int64_t head_dim = 0;
  // linear_attention (Gated DeltaNet, models.md §3.2): conv channels and the taps the window
  // keeps (kernel - 1), value heads and the state's key/value dims.
  int64_t conv_dim = 0;
  int64_t conv_window = 0;
  int64_t value_heads = 0;
  int64_t key_head_dim = 0;
  int64_t value_head_dim = 0;
};

// One attention layer's keys and values: [slots * capacity, kv_heads, head_dim] each, in the
// model's dtype and on its device.
struct KVCacheView {
  at::Tensor keys;
  at::Tensor values;
};

// One Gated DeltaNet layer's state per slot: the last kernel - 1 pre-convolution columns
// conv [slots, conv_dim, kernel - 1] (model dtype; transformers keeps kernel columns, the oldest
// never read) and the delta rule's state recurrent [slots, value_heads, key_head_dim,
// value_head_dim] in fp32 (the kernel's state dtype).
struct RecurrentStateView {
  at::Tensor conv;
  at::Tensor recurrent;
};

// Every layer's state, indexed like the model's layers: layers[i] is defined for attention
// layers, recurrent[i] for linear-attention ones.
struct GenerationStateView {
  int64_t slots = 0;
  int64_t capacity = 0;
  std::vector<KVCacheView> layers;
  std::vector<RecurrentStateView> recurrent;
};

// The tokens a prefill's sequences already have in the cache (chunked prefill, prefix-cache hits):
// sequence s continues after its first lengths[s] tokens; key_rows lists, sequence by sequence,
// the cache rows of those tokens and then of the prefill's own tokens (the keys its queries read).
struct PrefillContext {
  std::vector<int64_t> lengths;  // [S], host
  at::Tensor key_rows;           // [sum over s of lengths[s] + its prefill tokens] int64
};

// Where one decode step reads: sequence n (one query token each) attends to entries
// [0, lengths[n]) of its slot, the new token's own entry included. With page_size > 0 the cache
// is paged instead (rollout/kv_cache_manager.h): entry t of sequence n is row
// pages[page_offsets[n] + t / page_size] * page_size + t % page_size of the flat keys and values,
// and slot_starts, cu_starts_i32 are not used.
struct DecodeView {
  int64_t page_size = 0;    // a power of two when paged
  at::Tensor pages;         // [P] int32: every sequence's pages, in order
  at::Tensor page_offsets;  // [N] int32: sequence n's first entry in pages
  at::Tensor state_slots;   // [N] int64: the state slot of sequence n (linear-attention layers)
  at::Tensor new_rows;      // [N] int64: the cache row taking the new token's keys and values
  at::Tensor slot_starts;   // [N] int64: slot * capacity
  at::Tensor lengths;       // [N] int64, on the cache's device
  int64_t max_length = 0;   // host upper bound of lengths (<= capacity)
  // For flash attention (bf16/fp16 CUDA): [N + 1] int32 slot starts then slots * capacity, and
  // lengths as int32. Undefined when not used.
  at::Tensor cu_starts_i32;
  at::Tensor lengths_i32;
};

// The view of a decode step over contiguous slots: sequence n in slot slots[n] (entries at rows
// slots[n] * capacity + [0, lengths[n]), the new token's at entry lengths[n] - 1), its state in
// slot slots[n]; with `flash` also the int32 starts (then total_slots * capacity) and lengths the
// CUDA kernels read. slots and lengths [N] int64 on the cache's device.
DecodeView slot_decode_view(const at::Tensor& slots, const at::Tensor& lengths, int64_t capacity,
                            int64_t total_slots, int64_t max_length, bool flash);

}  // namespace verlpp::model
