// One decode step over the paged cache (kv_cache.h PagedKVCache, block tables from
// kv_cache_manager.h): each sequence feeds the token it sampled last and reads its keys through its
// block table. Eager (paged_decode) or replayed from CUDA graphs (GraphedPagedDecoder: one graph
// per batch-size bucket, powers of two up to max_rows, as vLLM v1's model runner captures its
// decode batch sizes), so that a step costs a few launches instead of one per kernel.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/kv_cache.h"

namespace verlpp::rollout {

// A decode step's inputs on the host, one entry per sequence.
struct PagedDecodeInputs {
  std::vector<int64_t> tokens;       // the token to feed
  std::vector<int64_t> positions;    // its position id
  std::vector<int64_t> lengths;      // cache entries once it is stored (>= 1)
  std::vector<int64_t> new_rows;     // the cache row taking its keys and values
  std::vector<int64_t> state_slots;  // linear-attention state slot (0 if none)
  std::vector<const std::vector<int64_t>*> block_tables;  // the sequence's blocks, in order
  // Asynchronous scheduling: a token the host has not read yet (tokens[i] == kPendingToken) is
  // device_tokens[device_rows[i]] (device_rows[i] = -1 for the others; may be empty when none).
  std::vector<int64_t> device_rows;
  at::Tensor device_tokens;

  size_t size() const { return tokens.size(); }
};

// `values` as an [N] tensor of `dtype` on `device`, copied without waiting for the device's queued
// work (core/host_copy.h to_device).
at::Tensor device_tensor(const std::vector<int64_t>& values, const at::Device& device,
                         at::ScalarType dtype = at::kLong);

// tokens[i] = in.device_tokens[in.device_rows[i]] where a row is given (device work only; no wait).
void take_device_tokens(at::Tensor tokens, const PagedDecodeInputs& in);

// Hidden states [N, hidden] of the step, eager.
at::Tensor paged_decode(const model::CausalLM& model, PagedKVCache& cache,
                        const PagedDecodeInputs& in);

class GraphedPagedDecoder {
 public:
  // `cache` must outlive the decoder. Rows of a bucket beyond the live batch read and write
  // `scratch_block` and `scratch_slot`, which the KV manager must not hand out. max_pages: the most
  // blocks a sequence holds (the graphs read keys up to max_pages blocks). Throws verlpp::Error for
  // max_rows or max_pages < 1.
  GraphedPagedDecoder(const model::CausalLM& model, PagedKVCache& cache, int64_t max_rows,
                      int64_t max_pages, int64_t scratch_block, int64_t scratch_slot);
  ~GraphedPagedDecoder();

  // Hidden states [N, hidden]: a view of the graph's output, valid until the next step. Throws
  // verlpp::Error when N is outside [1, max_rows], a block table is longer than max_pages, or
  // capture fails.
  at::Tensor step(const PagedDecodeInputs& in);

 private:
  struct Bucket;
  Bucket& bucket_for(int64_t n);
  // Copies `in` into the bucket's input buffers, rows beyond it as padding.
  void fill(Bucket& b, const PagedDecodeInputs& in) const;

  const model::CausalLM& model_;
  PagedKVCache& cache_;
  int64_t max_rows_, max_pages_, scratch_block_, scratch_slot_;
  std::map<int64_t, std::unique_ptr<Bucket>> buckets_;
};

}  // namespace verlpp::rollout
