// LibTorch binding of the split-KV decode attention kernel (decode_attention_kernel.h): checks
// and prepares tensors, picks the split of the keys, launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernel and it takes these tensors: q [N, heads, d] and
// k_cache [rows, kv_heads, d] CUDA, both bf16 or both fp16, d 64 or 128, heads / kv_heads 1..8.
bool can_decode_attention(const at::Tensor& q, const at::Tensor& k_cache);

// Softmax(scale · q kᵀ) v for one query token per sequence over the cached keys and values, no
// copy of the cache: sequence n reads rows [starts[n], starts[n] + lengths[n]) of k_cache and
// v_cache [rows, kv_heads, d]; query head h reads kv head h / (heads / kv_heads). starts and
// lengths int32 on q's device, at least N entries each (extra entries are ignored); max_length >=
// every length (a host bound that fixes the launch: the split of the keys over thread blocks
// depends on N, kv_heads and max_length only, so a CUDA graph may capture it). Returns [N, heads,
// d] in q's dtype; a sequence of length 0 gets zeros. Throws verlpp::Error when
// can_decode_attention is false or the shapes disagree.
at::Tensor decode_attention(const at::Tensor& q, const at::Tensor& k_cache,
                            const at::Tensor& v_cache, const at::Tensor& starts,
                            const at::Tensor& lengths, int64_t max_length, double scale);

}  // namespace verlpp::kernels
