// Key/value cache for incremental decoding (the rollout engine's prefill + decode). Preallocated
// once: per layer, keys and values [slots, capacity, kv_heads, head_dim] in the model's dtype and
// device; a sequence owns one slot and its token i lives at entry i of that slot. Flattened, entry
// (slot, i) is row slot * capacity + i of a [slots * capacity, kv_heads, head_dim] view.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "verlpp/model/model_config.h"

namespace verlpp::model {

class KVCache {
 public:
  // Throws verlpp::Error when slots < 1 or capacity < 1.
  KVCache(const ModelConfig& config, int64_t slots, int64_t capacity, at::ScalarType dtype,
          const at::Device& device);

  int64_t slots() const { return slots_; }
  int64_t capacity() const { return capacity_; }
  int64_t num_layers() const { return static_cast<int64_t>(keys_.size()); }
  // [slots * capacity, kv_heads, head_dim] views of one layer's storage.
  const at::Tensor& keys(int64_t layer) const { return keys_.at(static_cast<size_t>(layer)); }
  const at::Tensor& values(int64_t layer) const { return values_.at(static_cast<size_t>(layer)); }

  // Writes k, v [T, kv_heads, head_dim] at flat rows `rows` [T] int64 (slot * capacity + i).
  void store(int64_t layer, const at::Tensor& k, const at::Tensor& v, const at::Tensor& rows);

 private:
  int64_t slots_ = 0;
  int64_t capacity_ = 0;
  std::vector<at::Tensor> keys_;
  std::vector<at::Tensor> values_;
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

// Single-query causal attention over the cache: q [N, heads, head_dim] -> [N, heads, head_dim],
// query head h reading kv head h / (heads / kv_heads). bf16/fp16 CUDA (with cu_starts_i32 set)
// uses verlpp's split-KV decode kernel (kernels/decode_attention.h) when the build has it and
// takes the shape, else flash attention with per-sequence key counts (no copy of the cache either
// way); otherwise the eager formula (softmax in fp32, as transformers' eager attention) over the
// gathered prefix.
at::Tensor decode_attention(const at::Tensor& q, const KVCache& cache, int64_t layer,
                            const DecodeView& view, double scale);

}  // namespace verlpp::model
