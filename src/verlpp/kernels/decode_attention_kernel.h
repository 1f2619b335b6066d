// Split-KV ("flash-decoding") attention of one query token per sequence over a contiguous or paged
// KV cache: the CUDA core, with raw pointers and no LibTorch (the binding is decode_attention.h).
//
// Sequence n's keys are cache rows [starts[n], starts[n] + lengths[n]), or with a page table (block
// tables in CSR form, pages of 2^page_shift rows) key t is row
// pages[page_offsets[n] + (t >> page_shift)] * 2^page_shift + t mod 2^page_shift. Its keys are cut
// into `splits` ranges of `keys_per_split`; one thread block takes one (range, kv head, sequence)
// and all heads / kv_heads query heads of that kv head at once, so each kv head's keys and values
// are read once per sequence; a key row is read by head_dim / 8 lanes with one 16-byte load each,
// and the softmax is rescaled once per tile of keys. A second kernel merges the ranges' partial
// results (running maximum and sum of exp, the online softmax of Milakov & Gimelshein 2018 as in
// FlashAttention-2, Dao 2023; the split of the keys is Dao et al.'s "Flash-Decoding", 2023).
// Softmax and sums in fp32.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace verlpp::kernels {

struct DecodeAttentionParams {
  const void* q;                   // [num_seqs, heads, head_dim], bf16 or fp16, contiguous
  const void* k_cache;             // [rows, kv_heads, head_dim], same dtype, contiguous
  const void* v_cache;             // [rows, kv_heads, head_dim]
  const int32_t* starts;           // [num_seqs] first cache row of each sequence (no page table)
  const int32_t* pages = nullptr;  // page table: every sequence's pages, in order
  const int32_t* page_offsets = nullptr;  // [num_seqs] first entry of sequence n in `pages`
  int page_shift = 0;                     // log2 of the rows per page
  const int32_t* lengths;  // [num_seqs] keys of each sequence (0 gives a zero output)
  void* out;               // [num_seqs, heads, head_dim], the dtype of q
  float* partial_out;      // [num_seqs, heads, splits, head_dim] scratch
  float* partial_max;      // [num_seqs, heads, splits] scratch (log2 units)
  float* partial_sum;      // [num_seqs, heads, splits] scratch
  int num_seqs = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int splits = 1, keys_per_split = 0;  // splits * keys_per_split >= every length
  float scale = 1.0f;                  // multiplies q·k before the softmax
  bool bf16 = true;                    // false: fp16
};

// True for the shapes the kernels are built for: head_dim 64, 128 or 256 (Qwen3.5), heads /
// kv_heads in 1..8.
bool decode_attention_supported(int heads, int kv_heads, int head_dim);

// Launches both kernels on `stream`; returns the launch's error (cudaSuccess when none).
cudaError_t launch_decode_attention(const DecodeAttentionParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
