#include "verlpp/model/layers/attention.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>

#include <limits>

#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/kernels/decode_attention.h"
#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/model/batch_invariant.h"

namespace verlpp::model {

SequenceLayout SequenceLayout::packed(const at::Tensor& cu_seqlens, const at::Device& device) {
  if (cu_seqlens.dim() != 1 || cu_seqlens.size(0) < 2) {
    throw Error("cu_seqlens must be a 1-D tensor of at least 2 entries");
  }
  SequenceLayout layout;
  const at::Tensor host = cu_seqlens.to(at::kCPU, at::kLong).contiguous();
  const int64_t* cu = host.data_ptr<int64_t>();
  if (cu[0] != 0) throw Error("cu_seqlens must start at 0");
  for (int64_t s = 0; s + 1 < host.size(0); ++s) {
    if (cu[s + 1] < cu[s]) throw Error(fmt::format("cu_seqlens decreases at index {}", s + 1));
    layout.starts.push_back(cu[s]);
    layout.lengths.push_back(cu[s + 1] - cu[s]);
    layout.max_seqlen = std::max(layout.max_seqlen, cu[s + 1] - cu[s]);
  }
  layout.cu_seqlens = host.to(at::kInt).to(device);
  return layout;
}

SequenceLayout SequenceLayout::padded_batch(const at::Tensor& attention_mask,
                                            const at::Device& device) {
  if (attention_mask.dim() != 2) throw Error("attention_mask must be [batch, length]");
  SequenceLayout layout;
  layout.batch = attention_mask.size(0);
  layout.length = attention_mask.size(1);
  layout.key_mask = attention_mask.to(device).ne(0);
  return layout;
}

namespace {

// q [B, H, L, d], k/v [B, KV, L, d], allowed [B or 1, 1, L, L] bool -> [B, H, L, d].
at::Tensor eager_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                           const at::Tensor& allowed, double scale) {
  const int64_t groups = q.size(1) / k.size(1);
  const at::Tensor kr = groups == 1 ? k : k.repeat_interleave(groups, 1);
  const at::Tensor vr = groups == 1 ? v : v.repeat_interleave(groups, 1);
  at::Tensor scores = at::matmul(q, kr.transpose(-1, -2)) * scale;
  scores = scores.masked_fill(allowed.logical_not(), -std::numeric_limits<double>::infinity());
  const at::Tensor probs = at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
  return at::matmul(probs, vr);
}

// Query i of sequence s (packed by `queries`) attends to its keys (packed by `keys`) up to
// position keys_s - queries_s + i: plain causal attention when both layouts are the same, a
// continued prefill (causal_attention_with_context) otherwise.
at::Tensor packed_eager(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                        const SequenceLayout& queries, const SequenceLayout& keys, double scale) {
  std::vector<at::Tensor> outs;
  outs.reserve(queries.lengths.size());
  const auto bool_options = at::TensorOptions().dtype(at::kBool).device(q.device());
  for (size_t s = 0; s < queries.lengths.size(); ++s) {
    const int64_t nq = queries.lengths[s], nk = keys.lengths[s];
    if (nq == 0) continue;
    auto heads_first = [](const at::Tensor& t, int64_t start, int64_t len) {
      return t.narrow(0, start, len).transpose(0, 1).unsqueeze(0);
    };
    const at::Tensor allowed = at::ones({nq, nk}, bool_options).tril(nk - nq).view({1, 1, nq, nk});
    const at::Tensor o =
        eager_attention(heads_first(q, queries.starts[s], nq), heads_first(k, keys.starts[s], nk),
                        heads_first(v, keys.starts[s], nk), allowed, scale);
    outs.push_back(o.squeeze(0).transpose(0, 1));
  }
  return at::cat(outs, 0);
}

at::Tensor padded_eager(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                        const SequenceLayout& layout, double scale) {
  const int64_t B = layout.batch;
  const int64_t L = layout.length;
  auto batched = [&](const at::Tensor& t) {
    return t.view({B, L, t.size(1), t.size(2)}).transpose(1, 2);
  };
  const auto bool_options = at::TensorOptions().dtype(at::kBool).device(q.device());
  const at::Tensor causal = at::ones({L, L}, bool_options).tril().view({1, 1, L, L});
  const at::Tensor diagonal = at::eye(L, bool_options).view({1, 1, L, L});
  const at::Tensor keys = layout.key_mask.view({B, 1, 1, L});
  const at::Tensor allowed = causal.logical_and(keys).logical_or(diagonal);
  const at::Tensor o = eager_attention(batched(q), batched(k), batched(v), allowed, scale);
  return o.transpose(1, 2).reshape({B * L, q.size(1), q.size(2)});
}

// Batch-invariant mode (model/batch_invariant.h): which keys each query reads, as the contiguous
// rows [start, start + count) that kernels::invariant_attention takes.
struct KeyRanges {
  std::vector<int64_t> start, count;

  void add(int64_t first, int64_t n) {
    start.push_back(first);
    count.push_back(n);
  }
  at::Tensor starts() const { return at::tensor(start, at::kLong); }
  at::Tensor counts() const { return at::tensor(count, at::kLong); }
};

// Query i of sequence s reads its sequence's keys up to keys_s - queries_s + i.
KeyRanges packed_ranges(const SequenceLayout& queries, const SequenceLayout& keys) {
  KeyRanges r;
  for (size_t s = 0; s < queries.lengths.size(); ++s) {
    const int64_t earlier = keys.lengths[s] - queries.lengths[s];
    for (int64_t i = 0; i < queries.lengths[s]; ++i) r.add(keys.starts[s], earlier + i + 1);
  }
  return r;
}

// A padded row's real tokens must be contiguous (left-padded prompt, right-padded response);
// a real query reads the real keys up to itself, a padding query itself only.
KeyRanges padded_ranges(const SequenceLayout& layout) {
  const at::Tensor mask = layout.key_mask.to(at::kCPU).contiguous();
  const bool* m = mask.data_ptr<bool>();
  KeyRanges r;
  for (int64_t b = 0; b < layout.batch; ++b) {
    const bool* row = m + b * layout.length;
    int64_t first = 0;
    while (first < layout.length && !row[first]) ++first;
    int64_t last = layout.length;
    while (last > first && !row[last - 1]) --last;
    for (int64_t t = first; t < last; ++t) {
      if (!row[t]) {
        throw Error(fmt::format(
            "attention: batch-invariant mode needs each row's real tokens contiguous; row {} has "
            "padding at position {} between real tokens",
            b, t));
      }
    }
    for (int64_t t = 0; t < layout.length; ++t) {
      const bool real = t >= first && t < last;
      r.add(b * layout.length + (real ? first : t), real ? t - first + 1 : 1);
    }
  }
  return r;
}

// causal_attention outside batch-invariant mode: flash attention for packed bf16/fp16 CUDA tensors
// when the build has it, else the eager formula.
at::Tensor reference_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const SequenceLayout& layout, double scale) {
  if (layout.padded()) return padded_eager(q, k, v, layout, scale);
  const bool half = q.scalar_type() == at::kBFloat16 || q.scalar_type() == at::kHalf;
  if (q.is_cuda() && half && compat::has_flash_attention_varlen()) {
    return compat::flash_attention_varlen(q, k, v, layout.cu_seqlens, layout.max_seqlen, scale);
  }
  return packed_eager(q, k, v, layout, layout, scale);
}

// Forward through kernels::invariant_attention; backward through reference_attention recomputed
// with autograd (its bits need not match the forward's). The layout is kept for the backward: a
// padded layout's key_mask, or a packed layout's starts/lengths/cu_seqlens/max_seqlen.
struct InvariantAttention : torch::autograd::Function<InvariantAttention> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& q,
                            const at::Tensor& k, const at::Tensor& v, const SequenceLayout& layout,
                            double scale) {
    const KeyRanges r = layout.padded() ? padded_ranges(layout) : packed_ranges(layout, layout);
    ctx->save_for_backward({q, k, v, layout.padded() ? layout.key_mask : layout.cu_seqlens});
    ctx->saved_data["padded"] = layout.padded();
    ctx->saved_data["max_seqlen"] = layout.max_seqlen;
    ctx->saved_data["starts"] = layout.starts;
    ctx->saved_data["lengths"] = layout.lengths;
    ctx->saved_data["batch"] = layout.batch;
    ctx->saved_data["length"] = layout.length;
    ctx->saved_data["scale"] = scale;
    return kernels::invariant_attention(q, k, v, r.starts(), r.counts(), scale);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    SequenceLayout layout;
    layout.starts = ctx->saved_data["starts"].toIntVector();
    layout.lengths = ctx->saved_data["lengths"].toIntVector();
    layout.batch = ctx->saved_data["batch"].toInt();
    layout.length = ctx->saved_data["length"].toInt();
    if (ctx->saved_data["padded"].toBool()) {
      layout.key_mask = saved[3];
    } else {
      layout.cu_seqlens = saved[3];
    }
    layout.max_seqlen = ctx->saved_data["max_seqlen"].toInt();
    const double scale = ctx->saved_data["scale"].toDouble();
    const at::AutoGradMode grad_mode(true);
    const at::Tensor q = saved[0].detach().requires_grad_(true);
    const at::Tensor k = saved[1].detach().requires_grad_(true);
    const at::Tensor v = saved[2].detach().requires_grad_(true);
    const at::Tensor out = reference_attention(q, k, v, layout, scale);
    const auto grads = torch::autograd::grad({out}, {q, k, v}, {grad_out[0]});
    return {grads[0], grads[1], grads[2], at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const SequenceLayout& layout, double scale) {
  if (q.size(1) % k.size(1) != 0) {
    throw Error(fmt::format("attention: {} query heads are not a multiple of {} kv heads",
                            q.size(1), k.size(1)));
  }
  if (batch_invariant()) return InvariantAttention::apply(q, k, v, layout, scale);
  return reference_attention(q, k, v, layout, scale);
}

at::Tensor causal_attention_with_context(const at::Tensor& q, const at::Tensor& k,
                                         const at::Tensor& v, const SequenceLayout& queries,
                                         const SequenceLayout& keys, double scale) {
  const size_t S = queries.lengths.size();
  if (keys.lengths.size() != S) {
    throw Error(
        fmt::format("attention: {} query sequences but {} key sequences", S, keys.lengths.size()));
  }
  for (size_t s = 0; s < S; ++s) {
    if (keys.lengths[s] < queries.lengths[s]) {
      throw Error(fmt::format("attention: sequence {} has {} keys for {} queries", s,
                              keys.lengths[s], queries.lengths[s]));
    }
  }
  if (batch_invariant()) {
    const KeyRanges r = packed_ranges(queries, keys);
    return kernels::invariant_attention(q, k, v, r.starts(), r.counts(), scale);
  }
  const bool half = q.scalar_type() == at::kBFloat16 || q.scalar_type() == at::kHalf;
  if (q.is_cuda() && half && compat::has_flash_attention_varlen()) {
    return compat::flash_attention_varlen(q, k, v, queries.cu_seqlens, keys.cu_seqlens,
                                          queries.max_seqlen, keys.max_seqlen, scale);
  }
  return packed_eager(q, k, v, queries, keys, scale);
}

namespace {

// Gathers each sequence's first max_length entries: [N, max_length, kv_heads, d].
// [N, max_length] int64: the cache row of entry t of sequence n (beyond its length: some row in
// range, masked by the caller).
at::Tensor key_rows(const DecodeView& view) {
  const at::Tensor t = at::arange(view.max_length, view.lengths.options()).unsqueeze(0);
  if (view.page_size == 0) return view.slot_starts.unsqueeze(1) + t;
  const at::Tensor pages = view.pages.to(at::kLong);
  const at::Tensor entry =
      (view.page_offsets.to(at::kLong).unsqueeze(1) + at::div(t, view.page_size, "floor"))
          .clamp_max(std::max<int64_t>(pages.numel() - 1, 0));
  return pages.index_select(0, entry.reshape({-1})).view(entry.sizes()) * view.page_size +
         at::remainder(t, view.page_size);
}

at::Tensor gather_prefix(const at::Tensor& flat, const DecodeView& view) {
  const int64_t N = view.lengths.size(0);
  return flat.index_select(0, key_rows(view).reshape({-1}))
      .view({N, view.max_length, flat.size(1), flat.size(2)});
}

at::Tensor eager_decode(const at::Tensor& q, const KVCacheView& cache, const DecodeView& view,
                        double scale) {
  const int64_t N = q.size(0);
  const int64_t H = q.size(1);
  const int64_t d = q.size(2);
  const at::Tensor k = gather_prefix(cache.keys, view);    // [N, L, KV, d]
  const at::Tensor v = gather_prefix(cache.values, view);  // [N, L, KV, d]
  const int64_t KV = k.size(2);
  const at::Tensor qg = q.view({N, KV, H / KV, d});                     // [N, KV, G, d]
  at::Tensor scores = at::matmul(qg, k.permute({0, 2, 3, 1})) * scale;  // [N, KV, G, L]
  const at::Tensor positions = at::arange(view.max_length, view.lengths.options());
  const at::Tensor beyond = positions.unsqueeze(0).ge(view.lengths.unsqueeze(1));  // [N, L]
  scores = scores.masked_fill(beyond.view({N, 1, 1, view.max_length}),
                              -std::numeric_limits<double>::infinity());
  const at::Tensor probs = at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
  return at::matmul(probs, v.permute({0, 2, 1, 3})).reshape({N, H, d});  // [N, KV, G, d]
}

// Batch-invariant mode. CUDA: verlpp's decode kernel with the mode's fixed split of the keys (the
// kernel kernels::invariant_attention runs for prefills and the trainer), on the paged or the slot
// cache, without host synchronisation (CUDA graphs capture it). CPU: each row's prefix gathered
// ([N * max_length, kv_heads, d]), row n reading its first lengths[n] entries.
at::Tensor invariant_decode(const at::Tensor& q, const KVCacheView& cache, const DecodeView& view,
                            double scale) {
  if (q.is_cuda()) {
    const at::Tensor lengths =
        view.lengths_i32.defined() ? view.lengths_i32 : view.lengths.to(at::kInt);
    if (view.page_size > 0) {
      return kernels::invariant_decode_attention_paged(q, cache.keys, cache.values, view.pages,
                                                       view.page_offsets, view.page_size, lengths,
                                                       view.max_length, scale);
    }
    if (!view.cu_starts_i32.defined() || !kernels::can_run_invariant_cuda(q)) {
      throw Error("batch-invariant decode attention on CUDA needs a bf16/fp16 paged or slot cache");
    }
    return kernels::decode_attention(q, cache.keys, cache.values, view.cu_starts_i32, lengths,
                                     view.max_length, scale, kernels::kInvariantKeysPerSplit);
  }
  const int64_t N = q.size(0);
  const at::Tensor k = gather_prefix(cache.keys, view).flatten(0, 1);
  const at::Tensor v = gather_prefix(cache.values, view).flatten(0, 1);
  const at::Tensor starts = at::arange(N, at::kLong) * view.max_length;
  return kernels::invariant_attention(q, k, v, starts, view.lengths.to(at::kCPU), scale);
}

}  // namespace

at::Tensor decode_attention(const at::Tensor& q, const KVCacheView& cache, int64_t capacity,
                            const DecodeView& view, double scale) {
  if (view.max_length < 1 || (view.page_size == 0 && view.max_length > capacity)) {
    throw Error(fmt::format("decode attention: max_length {} outside [1, capacity {}]",
                            view.max_length, capacity));
  }
  if (batch_invariant()) return invariant_decode(q, cache, view, scale);
  const at::Tensor& keys = cache.keys;
  const at::Tensor& values = cache.values;
  if (view.page_size > 0) {
    if (kernels::can_decode_attention(q, keys)) {
      return kernels::decode_attention_paged(
          q, keys, values, view.pages, view.page_offsets, view.page_size,
          view.lengths_i32.defined() ? view.lengths_i32 : view.lengths.to(at::kInt),
          view.max_length, scale);
    }
    return eager_decode(q, cache, view, scale);
  }
  if (view.cu_starts_i32.defined()) {
    if (kernels::can_decode_attention(q, keys)) {
      return kernels::decode_attention(q, keys, values, view.cu_starts_i32, view.lengths_i32,
                                       view.max_length, scale);
    }
    const bool half = q.scalar_type() == at::kBFloat16 || q.scalar_type() == at::kHalf;
    if (q.is_cuda() && half && compat::has_flash_attention_kvcache()) {
      return compat::flash_attention_kvcache(q, keys, values, view.cu_starts_i32, view.lengths_i32,
                                             view.max_length, scale);
    }
  }
  return eager_decode(q, cache, view, scale);
}

}  // namespace verlpp::model
