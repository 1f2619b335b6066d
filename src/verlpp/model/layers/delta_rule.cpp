#include "verlpp/model/layers/delta_rule.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "verlpp/core/error.h"
#include "verlpp/kernels/delta_rule_decode.h"
#include "verlpp/kernels/l2_normalize.h"
#include "verlpp/model/layers/delta_rule_chunked.h"

namespace verlpp::model {

DeltaRuleLayout DeltaRuleLayout::build(const std::vector<int64_t>& starts,
                                       const std::vector<int64_t>& lengths, int64_t tokens,
                                       const at::Device& device, int64_t chunk_size,
                                       int64_t conv_window) {
  if (starts.size() != lengths.size() || chunk_size < 1) {
    throw Error("delta rule layout: starts and lengths differ in size, or chunk size < 1");
  }
  DeltaRuleLayout l;
  l.tokens = tokens;
  l.chunk_size = chunk_size;
  const auto S = static_cast<int64_t>(lengths.size());
  std::vector<int64_t> chunks_of(lengths.size());
  for (int64_t s = 0; s < S; ++s) {
    const int64_t len = lengths[static_cast<size_t>(s)];
    if (len < 0 || starts[static_cast<size_t>(s)] < 0 ||
        starts[static_cast<size_t>(s)] + len > tokens) {
      throw Error(
          fmt::format("delta rule layout: sequence {} ({} tokens at {}) is outside the {} "
                      "tokens",
                      s, len, starts[static_cast<size_t>(s)], tokens));
    }
    chunks_of[static_cast<size_t>(s)] = (len + chunk_size - 1) / chunk_size;
  }
  l.order.resize(lengths.size());
  std::iota(l.order.begin(), l.order.end(), 0);
  std::stable_sort(l.order.begin(), l.order.end(), [&](int64_t a, int64_t b) {
    return chunks_of[static_cast<size_t>(a)] > chunks_of[static_cast<size_t>(b)];
  });
  const int64_t steps = S == 0 ? 0 : chunks_of[static_cast<size_t>(l.order[0])];
  std::vector<int64_t> chunk_rows, token_rows(static_cast<size_t>(tokens), -1);
  std::vector<int64_t> offsets(static_cast<size_t>(tokens), 0);
  for (int64_t j = 0; j < steps; ++j) {
    l.step_offsets.push_back(static_cast<int64_t>(chunk_rows.size()) / chunk_size);
    int64_t size = 0;
    for (int64_t s : l.order) {
      if (chunks_of[static_cast<size_t>(s)] <= j) break;
      ++size;
      const int64_t begin = starts[static_cast<size_t>(s)];
      const int64_t len = lengths[static_cast<size_t>(s)];
      for (int64_t i = j * chunk_size; i < (j + 1) * chunk_size; ++i) {
        if (i < len) {
          token_rows[static_cast<size_t>(begin + i)] = static_cast<int64_t>(chunk_rows.size());
          offsets[static_cast<size_t>(begin + i)] = i;
          chunk_rows.push_back(begin + i);
        } else {
          chunk_rows.push_back(tokens);
        }
      }
    }
    l.step_sizes.push_back(size);
  }
  l.chunks = static_cast<int64_t>(chunk_rows.size()) / chunk_size;
  if (std::find(token_rows.begin(), token_rows.end(), -1) != token_rows.end()) {
    throw Error("delta rule layout: the sequences do not cover every token");
  }
  std::vector<int64_t> conv_rows, conv_outputs(static_cast<size_t>(tokens), 0), window_rows;
  for (int64_t s = 0; s < S; ++s) {
    const int64_t start = starts[static_cast<size_t>(s)];
    const int64_t end = start + lengths[static_cast<size_t>(s)];
    for (int64_t i = end - conv_window; i < end; ++i)
      window_rows.push_back(i >= start ? i : tokens);
    conv_rows.insert(conv_rows.end(), static_cast<size_t>(conv_window), tokens);
    for (int64_t i = 0; i < lengths[static_cast<size_t>(s)]; ++i) {
      const int64_t t = starts[static_cast<size_t>(s)] + i;
      conv_outputs[static_cast<size_t>(t)] = static_cast<int64_t>(conv_rows.size()) - conv_window;
      conv_rows.push_back(t);
    }
  }
  l.conv_window = conv_window;
  std::vector<int64_t> counts, inverse(l.order.size());
  for (int64_t s : l.order) counts.push_back(chunks_of[static_cast<size_t>(s)]);
  for (size_t i = 0; i < l.order.size(); ++i) inverse[static_cast<size_t>(l.order[i])] = i;
  // One host-to-device copy for all of them (each copy from pageable memory waits for the
  // device's queue), then views.
  const std::vector<const std::vector<int64_t>*> parts = {
      &conv_rows, &conv_outputs,   &window_rows, &chunk_rows, &token_rows,
      &offsets,   &l.step_offsets, &counts,      &l.order,    &inverse};
  std::vector<int64_t> all;
  for (const auto* part : parts) all.insert(all.end(), part->begin(), part->end());
  const at::Tensor packed = at::tensor(all, at::TensorOptions().dtype(at::kLong)).to(device);
  std::vector<at::Tensor> views;
  int64_t offset = 0;
  for (const auto* part : parts) {
    views.push_back(packed.narrow(0, offset, static_cast<int64_t>(part->size())));
    offset += static_cast<int64_t>(part->size());
  }
  l.conv_rows = views[0];
  l.conv_outputs = views[1];
  l.window_rows = views[2];
  l.chunk_rows = views[3];
  l.token_rows = views[4];
  l.token_offsets = views[5];
  l.scan_offsets = views[6];
  l.scan_counts = views[7];
  l.order_index = views[8];
  l.order_inverse = views[9];
  return l;
}

at::Tensor l2_normalize(const at::Tensor& x) {
  return x * at::rsqrt((x * x).sum(-1, /*keepdim=*/true) + 1e-6);
}

namespace {

// out = x[index] for x [R, d] (fp32 out; index [M] may hold R: a zero row), differentiable in x:
// the backward gathers the gradient's rows by `inverse` [R] (which may hold M: zero), each row of x
// appearing once in `index`. Two gathers instead of a gather and a scatter-add.
struct GatherRows : torch::autograd::Function<GatherRows> {
  static at::Tensor with_zero_row(const at::Tensor& x, bool needed) {
    const at::Tensor f = x.to(at::kFloat);
    return needed ? at::cat({f, at::zeros({1, x.size(1)}, f.options())}) : f;
  }

  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, const at::Tensor& index,
                                                const at::Tensor& inverse, bool index_pads,
                                                bool inverse_pads) {
    ctx->save_for_backward({index, inverse});
    ctx->saved_data["inverse_pads"] = inverse_pads;
    ctx->saved_data["dtype"] = static_cast<int64_t>(x.scalar_type());
    return {with_zero_row(x, index_pads).index_select(0, index)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    const auto saved = ctx->get_saved_variables();
    const auto dtype = static_cast<at::ScalarType>(ctx->saved_data["dtype"].toInt());
    const at::Tensor grad = with_zero_row(grad_out[0], ctx->saved_data["inverse_pads"].toBool())
                                .index_select(0, saved[1])
                                .to(dtype);
    return {grad, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// l2norm(x) * scale as fp32 on CUDA: verlpp's kernels (kernels/l2_normalize.h) forward and
// backward, one pass each instead of ATen's chain of broadcasts and casts.
struct KernelL2Normalize : torch::autograd::Function<KernelL2Normalize> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx,
                                                const at::Tensor& x, double scale) {
    ctx->save_for_backward({x});
    ctx->saved_data["scale"] = scale;
    return {kernels::l2_normalize_fp32(x, scale)};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    return {
        kernels::l2_normalize_fp32_backward(ctx->get_saved_variables()[0], grad_out[0].contiguous(),
                                            ctx->saved_data["scale"].toDouble()),
        at::Tensor()};
  }
};

// l2norm(x) * scale, the norm taken in fp32 (transformers 5 casts q and k to fp32 first).
at::Tensor normalized_fp32(const at::Tensor& x, double scale) {
  if (kernels::can_l2_normalize(x)) return KernelL2Normalize::apply(x, scale)[0];
  const at::Tensor y = l2_normalize(x.to(at::kFloat));
  return scale == 1.0 ? y : y * scale;
}

// The rows of [T, H, ...] tensors in the chunked form [chunks, H, C, ...] and back, for H heads:
// chunk_index [chunks * H * C] (T * H for pads), token_index [T * H].
struct ChunkIndex {
  at::Tensor chunk_index, token_index;

  ChunkIndex(const DeltaRuleLayout& l, int64_t H) {
    const int64_t T = l.tokens, C = l.chunk_size;
    const at::Tensor heads = at::arange(H, l.chunk_rows.options());
    const at::Tensor rows = l.chunk_rows.view({l.chunks, 1, C});
    chunk_index = at::where(rows == T, T * H, rows * H + heads.view({1, H, 1})).reshape(-1);
    const at::Tensor n = at::div(l.token_rows, C, "floor").view({T, 1});
    const at::Tensor c = at::remainder(l.token_rows, C).view({T, 1});
    token_index = ((n * H + heads.view({1, H})) * C + c).reshape(-1);
  }

  // [T, H, ...] -> [chunks, H, C, ...] fp32 (pad rows zero).
  at::Tensor to_chunks(const at::Tensor& x, const DeltaRuleLayout& l) const {
    const std::vector<int64_t> rest(x.sizes().begin() + 2, x.sizes().end());
    int64_t d = 1;
    for (const int64_t size : rest) d *= size;
    const at::Tensor out =
        GatherRows::apply(x.reshape({x.size(0) * x.size(1), d}), chunk_index, token_index,
                          /*index_pads=*/true, /*inverse_pads=*/false)[0];
    std::vector<int64_t> shape = {l.chunks, x.size(1), l.chunk_size};
    shape.insert(shape.end(), rest.begin(), rest.end());
    return out.view(shape);
  }

  // [chunks, H, C, d] -> [T, H, d].
  at::Tensor from_chunks(const at::Tensor& x, const DeltaRuleLayout& l) const {
    const int64_t d = x.size(3);
    return GatherRows::apply(x.reshape({x.numel() / std::max<int64_t>(d, 1), d}), token_index,
                             chunk_index, /*index_pads=*/false, /*inverse_pads=*/true)[0]
        .view({l.tokens, x.size(1), d});
  }
};

}  // namespace

DeltaRuleOutput chunk_gated_delta_rule(const at::Tensor& q, const at::Tensor& k,
                                       const at::Tensor& v, const at::Tensor& g,
                                       const at::Tensor& beta, const DeltaRuleLayout& layout,
                                       const at::Tensor& initial_state) {
  const int64_t H = q.size(1), dk = q.size(2), dv = v.size(2);
  const auto S = static_cast<int64_t>(layout.order.size());
  if (q.size(0) != layout.tokens || k.sizes() != q.sizes() || v.size(0) != layout.tokens ||
      v.size(1) != H || g.sizes() != at::IntArrayRef({layout.tokens, H}) ||
      beta.sizes() != g.sizes()) {
    throw Error(fmt::format(
        "chunk_gated_delta_rule: expected q, k [{}, H, dk], v [{}, H, dv], g, beta [{}, H]; got "
        "q [{}], k [{}], v [{}], g [{}], beta [{}]",
        layout.tokens, layout.tokens, layout.tokens, fmt::join(q.sizes(), ", "),
        fmt::join(k.sizes(), ", "), fmt::join(v.sizes(), ", "), fmt::join(g.sizes(), ", "),
        fmt::join(beta.sizes(), ", ")));
  }
  const auto f32 = q.options().dtype(at::kFloat);
  at::Tensor state = initial_state.defined()
                         ? initial_state.to(at::kFloat).index_select(0, layout.order_index)
                         : at::zeros({S, H, dk, dv}, f32);
  const at::Tensor qn = normalized_fp32(q, 1.0 / std::sqrt(static_cast<double>(dk)));
  const ChunkIndex index(layout, H);
  const std::vector<at::Tensor> rule = chunked_delta_rule(
      index.to_chunks(qn, layout), index.to_chunks(normalized_fp32(k, 1.0), layout),
      index.to_chunks(v, layout), index.to_chunks(g, layout), index.to_chunks(beta, layout), state,
      layout);
  DeltaRuleOutput out;
  out.o = index.from_chunks(rule[0], layout);
  out.final_state = rule[1].index_select(0, layout.order_inverse);
  return out;
}

DeltaRuleOutput recurrent_gated_delta_rule_step(const at::Tensor& q, const at::Tensor& k,
                                                const at::Tensor& v, const at::Tensor& g,
                                                const at::Tensor& beta, const at::Tensor& state) {
  const int64_t N = state.size(0), H = state.size(1), dk = state.size(2), dv = state.size(3);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  // Batched over (row, head) as [N * H, ...] matrix products: the state is read and written a few
  // times per step rather than once per elementwise term (a decode step is bound by its traffic).
  const at::Tensor qn = (l2_normalize(q.to(at::kFloat)) * scale).reshape({N * H, 1, dk});
  const at::Tensor kn = l2_normalize(k.to(at::kFloat)).reshape({N * H, dk, 1});
  const at::Tensor decay = g.to(at::kFloat).exp().reshape({N * H, 1, 1});
  const at::Tensor decayed = state.reshape({N * H, dk, dv}) * decay;
  const at::Tensor memory = at::bmm(kn.transpose(1, 2), decayed);  // S^T k [N * H, 1, dv]
  const at::Tensor delta = (v.to(at::kFloat).reshape({N * H, 1, dv}) - memory) *
                           beta.to(at::kFloat).reshape({N * H, 1, 1});
  const at::Tensor next = at::baddbmm(decayed, kn, delta);
  DeltaRuleOutput out;
  out.o = at::bmm(qn, next).view({N, H, dv});
  out.final_state = next.view({N, H, dk, dv});
  return out;
}

at::Tensor recurrent_gated_delta_rule_update(const at::Tensor& q, const at::Tensor& k,
                                             const at::Tensor& v, const at::Tensor& g,
                                             const at::Tensor& beta, at::Tensor& states,
                                             const at::Tensor& slots) {
  if (!kernels::can_delta_rule_decode(states)) {
    const DeltaRuleOutput rule =
        recurrent_gated_delta_rule_step(q, k, v, g, beta, states.index_select(0, slots));
    states.index_copy_(0, slots, rule.final_state);
    return rule.o;
  }
  const double scale = 1.0 / std::sqrt(static_cast<double>(states.size(2)));
  const auto fp32 = [](const at::Tensor& x) { return x.to(at::kFloat).contiguous(); };
  return kernels::delta_rule_decode(fp32(l2_normalize(q.to(at::kFloat)) * scale),
                                    fp32(l2_normalize(k.to(at::kFloat))), fp32(v), fp32(g),
                                    fp32(beta), states, slots.contiguous());
}

}  // namespace verlpp::model
