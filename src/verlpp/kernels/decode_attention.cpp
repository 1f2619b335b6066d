#include "verlpp/kernels/decode_attention.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/decode_attention_kernel.h"
#include "verlpp/kernels/launch.h"
#endif

namespace verlpp::kernels {

namespace {

#ifdef VERLPP_CUDA_KERNELS
bool half_type(const at::Tensor& t) {
  return t.scalar_type() == at::kBFloat16 || t.scalar_type() == at::kHalf;
}

bool aligned16(const at::Tensor& t) {
  return reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0;
}

// Multiprocessors of the device this process decodes on (queried once).
int multiprocessors(int device) {
  static const int count = [device] {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) n = 1;
    return std::max(n, 1);
  }();
  return count;
}

// Splits of the keys: enough blocks to give every multiprocessor about 8, but no split shorter
// than 128 keys.
int choose_splits(int64_t blocks, int64_t max_length, int device) {
  const int64_t target = 8 * static_cast<int64_t>(multiprocessors(device));
  const int64_t wanted = (target + blocks - 1) / blocks;
  const int64_t longest = (max_length + 127) / 128;
  return static_cast<int>(std::clamp<int64_t>(std::min(wanted, longest), 1, 64));
}

void check_shapes(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                  const at::Tensor& starts, const at::Tensor& lengths, int64_t max_length) {
  // `starts` is a paged call's page_offsets: the same per-sequence int32 shape.
  if (!can_decode_attention(q, k_cache) || !v_cache.sizes().equals(k_cache.sizes()) ||
      v_cache.scalar_type() != k_cache.scalar_type() || v_cache.device() != q.device()) {
    throw Error(fmt::format("decode attention kernel: unsupported q [{}] / cache [{}] ({})",
                            fmt::join(q.sizes(), ", "), fmt::join(k_cache.sizes(), ", "),
                            c10::toString(q.scalar_type())));
  }
  const int64_t n = q.size(0);
  if (starts.scalar_type() != at::kInt || lengths.scalar_type() != at::kInt || starts.numel() < n ||
      lengths.numel() < n || starts.device() != q.device() || lengths.device() != q.device()) {
    throw Error(
        fmt::format("decode attention kernel: starts and lengths must be int32 on {} "
                    "with at least {} entries",
                    q.device().str(), n));
  }
  if (max_length < 1 || n > 65535) {
    throw Error(
        fmt::format("decode attention kernel: max_length {} must be >= 1 and sequences "
                    "{} at most 65535",
                    max_length, n));
  }
}
#endif

}  // namespace

bool can_decode_attention(const at::Tensor& q, const at::Tensor& k_cache) {
#ifdef VERLPP_CUDA_KERNELS
  return q.is_cuda() && k_cache.is_cuda() && q.dim() == 3 && k_cache.dim() == 3 && half_type(q) &&
         k_cache.scalar_type() == q.scalar_type() && q.size(2) == k_cache.size(2) &&
         decode_attention_supported(static_cast<int>(q.size(1)), static_cast<int>(k_cache.size(1)),
                                    static_cast<int>(q.size(2)));
#else
  (void)q, (void)k_cache;
  return false;
#endif
}

namespace {

// Where the kernel finds each sequence's keys: contiguous rows from `starts`, or a page table.
struct KeyRows {
  at::Tensor starts;               // [>= N] int32
  at::Tensor pages, page_offsets;  // int32; pages of 2^page_shift rows
  int page_shift = 0;
};

at::Tensor run(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
               const KeyRows& rows, const at::Tensor& lengths, int64_t max_length, double scale,
               int64_t fixed_keys_per_split) {
#ifdef VERLPP_CUDA_KERNELS
  if (q.size(0) == 0) return at::empty_like(q);
  at::Tensor query = q.contiguous();
  if (!aligned16(query)) query = query.clone();
  const at::Tensor keys = k_cache.contiguous(), values = v_cache.contiguous();
  if (!aligned16(keys) || !aligned16(values)) {
    throw Error("decode attention kernel: the KV cache must start on a 16-byte boundary");
  }
  const at::Tensor lengths_c = lengths.contiguous();
  const at::Tensor starts_c = rows.starts.defined() ? rows.starts.contiguous() : at::Tensor();
  const at::Tensor pages_c = rows.pages.defined() ? rows.pages.contiguous() : at::Tensor();
  const at::Tensor offsets_c =
      rows.page_offsets.defined() ? rows.page_offsets.contiguous() : at::Tensor();
  DecodeAttentionParams p;
  p.num_seqs = static_cast<int>(query.size(0));
  p.heads = static_cast<int>(query.size(1));
  p.kv_heads = static_cast<int>(keys.size(1));
  p.head_dim = static_cast<int>(query.size(2));
  const int device = q.device().index();
  if (fixed_keys_per_split > 0) {
    p.keys_per_split = static_cast<int>(fixed_keys_per_split);
    p.splits = static_cast<int>(
        std::max<int64_t>(2, (max_length + fixed_keys_per_split - 1) / fixed_keys_per_split));
  } else {
    p.splits = choose_splits(int64_t{p.num_seqs} * p.kv_heads, max_length, device);
    p.keys_per_split = static_cast<int>((max_length + p.splits - 1) / p.splits);
  }
  p.scale = static_cast<float>(scale);
  p.bf16 = query.scalar_type() == at::kBFloat16;
  at::Tensor out = at::empty_like(query);
  at::Tensor partial_out, partial_max, partial_sum;
  if (p.splits > 1) {
    const auto f32 = query.options().dtype(at::kFloat);
    partial_out = at::empty({p.num_seqs, p.heads, p.splits, p.head_dim}, f32);
    partial_max = at::empty({p.num_seqs, p.heads, p.splits}, f32);
    partial_sum = at::empty({p.num_seqs, p.heads, p.splits}, f32);
    p.partial_out = partial_out.data_ptr<float>();
    p.partial_max = partial_max.data_ptr<float>();
    p.partial_sum = partial_sum.data_ptr<float>();
  }
  p.q = query.data_ptr();
  p.k_cache = keys.data_ptr();
  p.v_cache = values.data_ptr();
  p.starts = starts_c.defined() ? starts_c.data_ptr<int32_t>() : nullptr;
  p.pages = pages_c.defined() ? pages_c.data_ptr<int32_t>() : nullptr;
  p.page_offsets = offsets_c.defined() ? offsets_c.data_ptr<int32_t>() : nullptr;
  p.page_shift = rows.page_shift;
  p.lengths = lengths_c.data_ptr<int32_t>();
  p.out = out.data_ptr();
  check_launch(launch_decode_attention(p, current_stream(q.device())), "decode attention");
  return out;
#else
  (void)q, (void)k_cache, (void)v_cache, (void)rows, (void)lengths, (void)max_length, (void)scale,
      (void)fixed_keys_per_split;
  throw Error(
      "decode attention kernel: this build has no CUDA kernels (needs a CUDA LibTorch "
      "and nvcc)");
#endif
}

}  // namespace

at::Tensor decode_attention(const at::Tensor& q, const at::Tensor& k_cache,
                            const at::Tensor& v_cache, const at::Tensor& starts,
                            const at::Tensor& lengths, int64_t max_length, double scale,
                            int64_t fixed_keys_per_split) {
#ifdef VERLPP_CUDA_KERNELS
  check_shapes(q, k_cache, v_cache, starts, lengths, max_length);
#endif
  KeyRows rows;
  rows.starts = starts;
  return run(q, k_cache, v_cache, rows, lengths, max_length, scale, fixed_keys_per_split);
}

at::Tensor decode_attention_paged(const at::Tensor& q, const at::Tensor& k_cache,
                                  const at::Tensor& v_cache, const at::Tensor& pages,
                                  const at::Tensor& page_offsets, int64_t page_size,
                                  const at::Tensor& lengths, int64_t max_length, double scale,
                                  int64_t fixed_keys_per_split) {
#ifdef VERLPP_CUDA_KERNELS
  check_shapes(q, k_cache, v_cache, page_offsets, lengths, max_length);
#endif
  if (page_size < 1 || (page_size & (page_size - 1)) != 0 || page_size > (int64_t{1} << 20) ||
      pages.scalar_type() != at::kInt || pages.device() != q.device()) {
    throw Error(fmt::format(
        "decode attention kernel: page_size {} must be a power of two (<= 2^20) and pages int32 "
        "on {}",
        page_size, q.device().str()));
  }
  KeyRows rows;
  rows.pages = pages;
  rows.page_offsets = page_offsets;
  while ((int64_t{1} << rows.page_shift) < page_size) ++rows.page_shift;
  return run(q, k_cache, v_cache, rows, lengths, max_length, scale, fixed_keys_per_split);
}

}  // namespace verlpp::kernels
