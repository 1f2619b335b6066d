// LibTorch binding of the split-KV decode attention kernel (decode_attention_kernel.h): checks
// and prepares tensors, picks the split of the keys, launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernel and it takes these tensors: q [N, heads, d] and
// k_cache [rows, kv_heads, d] CUDA, both bf16 or both fp16, d 64, 128 or 256, heads /
// kv_heads 1..8.
bool can_decode_attention(const at::Tensor& q, const at::Tensor& k_cache);

// Softmax(scale · q kᵀ) v for one query token per sequence over the cached keys and values, no
// copy of the cache: sequence n reads rows [starts[n], starts[n] + lengths[n]) of k_cache and
// v_cache [rows, kv_heads, d]; query head h reads kv head h / (heads / kv_heads). starts and
// lengths int32 on q's device, at least N entries each (extra entries are ignored); max_length >=
// every length (a host bound that fixes the launch: the split of the keys over thread blocks
// depends on N, kv_heads and max_length only, so a CUDA graph may capture it). Returns [N, heads,
// d] in q's dtype; a sequence of length 0 gets zeros. Throws verlpp::Error when
// can_decode_attention is false or the shapes disagree.
// fixed_keys_per_split > 0 (batch-invariant mode, kernels/invariant_ops.h): the keys are cut every
// fixed_keys_per_split keys from key 0 and the splits are always merged by the second kernel, so
// a sequence's result depends only on its own query and keys, not on N or max_length.
at::Tensor decode_attention(const at::Tensor& q, const at::Tensor& k_cache,
                            const at::Tensor& v_cache, const at::Tensor& starts,
                            const at::Tensor& lengths, int64_t max_length, double scale,
                            int64_t fixed_keys_per_split = 0);

// The same over a paged cache (block tables in CSR form): key t of sequence n is row
// pages[page_offsets[n] + t / page_size] * page_size + t % page_size of k_cache and v_cache.
// pages and page_offsets (at least N entries) int32 on q's device; page_size a power of two. Throws
// verlpp::Error as decode_attention does, and for a page_size that is not a power of two.
at::Tensor decode_attention_paged(const at::Tensor& q, const at::Tensor& k_cache,
                                  const at::Tensor& v_cache, const at::Tensor& pages,
                                  const at::Tensor& page_offsets, int64_t page_size,
                                  const at::Tensor& lengths, int64_t max_length, double scale,
                                  int64_t fixed_keys_per_split = 0);

}  // namespace verlpp::kernels
