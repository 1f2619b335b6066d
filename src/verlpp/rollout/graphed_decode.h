// Decode steps replayed from CUDA graphs (compat::CudaGraph): the model's decode + logits for a
// batch of one token per sequence, captured once per batch-size bucket (powers of two, capped at
// the number of sequences) and replayed every step, so that a step costs a few launches instead of
// one per kernel. Rows of a bucket beyond the live batch read and write a scratch cache slot.
// Used for bf16/fp16 CUDA models (flash attention over the cache, whose key counts come from
// device tensors); the graph reads keys up to the cache capacity bound.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>

#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/kv_cache.h"

namespace verlpp::rollout {

// The batch-size bucket of a step of n rows: the next power of two, at most max_rows.
int64_t graph_bucket(int64_t n, int64_t max_rows);

class GraphedDecoder {
 public:
  // `cache` must outlive the decoder; its last slot is the scratch slot (not used by sequences).
  // `max_rows`: the most sequences a step will hold (<= cache.slots() - 1).
  GraphedDecoder(const model::CausalLM& model, KVCache& cache, int64_t max_rows);
  ~GraphedDecoder();

  // Logits [N, vocab] for N live sequences (all [N] int64 on the model's device: the token to
  // feed, its position id, its slot, and its cache length including the new token). The result is a
  // view of the graph's output, valid until the next step(). Throws verlpp::Error when N is outside
  // [1, max_rows] or capture fails.
  at::Tensor step(const at::Tensor& tokens, const at::Tensor& positions, const at::Tensor& slots,
                  const at::Tensor& lengths);

 private:
  struct Bucket;
  Bucket& bucket_for(int64_t n);

  const model::CausalLM& model_;
  KVCache& cache_;
  int64_t max_rows_;
  std::map<int64_t, std::unique_ptr<Bucket>> buckets_;
};

}  // namespace verlpp::rollout
