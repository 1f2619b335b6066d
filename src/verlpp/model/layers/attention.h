// Causal self-attention over a batch of sequences, packed (verl's use_remove_padding: tokens of
// all sequences back to back, delimited by cu_seqlens) or padded ([batch, length] with a mask).
// Both layouts hand the layers token-major tensors [tokens, ...]; only attention looks at the
// layout. A decode step reads keys/values of earlier tokens from the rollout's KV cache instead
// (decode_attention).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "verlpp/model/generation_state.h"

namespace verlpp::model {

struct SequenceLayout {
  // Packed: cu_seqlens [S+1] int32 on the model's device; starts/lengths its host copy.
  at::Tensor cu_seqlens;
  std::vector<int64_t> starts;
  std::vector<int64_t> lengths;
  int64_t max_seqlen = 0;
  // Padded: tokens are [batch * length] row-major; key_mask [batch, length] bool (true = real).
  int64_t batch = 0;
  int64_t length = 0;
  at::Tensor key_mask;

  bool padded() const { return key_mask.defined(); }

  // cu_seqlens: [S+1] integer (0, then cumulative lengths; any device). Throws verlpp::Error when
  // it does not start at 0 or decreases.
  static SequenceLayout packed(const at::Tensor& cu_seqlens, const at::Device& device);
  // attention_mask: [batch, length], nonzero = real token (left or right padding).
  static SequenceLayout padded_batch(const at::Tensor& attention_mask, const at::Device& device);
};

// softmax(q k^T * scale + causal mask) v per sequence, with heads % kv_heads == 0 (GQA: query
// head h reads kv head h / (heads / kv_heads)). q [tokens, heads, d], k/v [tokens, kv_heads, d];
// returns [tokens, heads, d]. Packed bf16/fp16 CUDA tensors use varlen flash attention when the
// build has it; otherwise (and for the padded layout) the eager formula with the softmax in fp32,
// as transformers' eager attention. Padded rows attend to themselves only (their output is
// meaningless and ignored by callers). In batch-invariant mode (model/batch_invariant.h) every
// query runs kernels::invariant_attention over its own keys, the backward recomputing the eager
// formula; there a padded row's real tokens must be contiguous (verlpp::Error otherwise).
at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const SequenceLayout& layout, double scale);

// Causal attention of sequences that continue after tokens already computed (chunked prefill,
// prefix-cache hits): q [tokens, heads, d] packed by `queries`; k, v [keys, kv_heads, d] packed by
// `keys`, sequence s's keys being its keys_s - queries_s earlier tokens then its queries' own.
// Query i of sequence s attends to its keys [0, keys_s - queries_s + i]. Returns [tokens, heads,
// d]. bf16/fp16 CUDA uses varlen flash attention when the build has it, otherwise the eager
// formula (softmax in fp32); batch-invariant mode kernels::invariant_attention. Throws
// verlpp::Error when the layouts' sequence counts differ or a sequence has fewer keys than
// queries.
at::Tensor causal_attention_with_context(const at::Tensor& q, const at::Tensor& k,
                                         const at::Tensor& v, const SequenceLayout& queries,
                                         const SequenceLayout& keys, double scale);

// Single-query causal attention over a KV cache: q [N, heads, head_dim] -> [N, heads, head_dim],
// query head h reading kv head h / (heads / kv_heads); `capacity` is the cache's entries per slot.
// bf16/fp16 CUDA (with cu_starts_i32 set) uses verlpp's split-KV decode kernel
// (kernels/decode_attention.h) when the build has it and takes the shape, else flash attention
// with per-sequence key counts (no copy of the cache either way); otherwise the eager formula
// (softmax in fp32, as transformers' eager attention) over the gathered prefix; batch-invariant
// mode kernels::invariant_attention over it. Throws verlpp::Error when view.max_length is outside
// [1, capacity].
at::Tensor decode_attention(const at::Tensor& q, const KVCacheView& cache, int64_t capacity,
                            const DecodeView& view, double scale);

}  // namespace verlpp::model
