#include "verlpp/model/layers/delta_rule.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "verlpp/core/error.h"
#include "verlpp/kernels/delta_rule_decode.h"
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
  const auto options = at::TensorOptions().dtype(at::kLong);
  l.conv_rows = at::tensor(conv_rows, options).to(device);
  l.conv_outputs = at::tensor(conv_outputs, options).to(device);
  l.window_rows = at::tensor(window_rows, options).to(device);
  l.chunk_rows = at::tensor(chunk_rows, options).to(device);
  l.token_rows = at::tensor(token_rows, options).to(device);
  l.token_offsets = at::tensor(offsets, options).to(device);
  l.scan_offsets = at::tensor(l.step_offsets, options).to(device);
  std::vector<int64_t> counts;
  for (int64_t s : l.order) counts.push_back(chunks_of[static_cast<size_t>(s)]);
  l.scan_counts = at::tensor(counts, options).to(device);
  return l;
}

at::Tensor l2_normalize(const at::Tensor& x) {
  return x * at::rsqrt((x * x).sum(-1, /*keepdim=*/true) + 1e-6);
}

namespace {

// [T, H, ...] -> [chunks, H, C, ...] fp32 in the layout's chunk order (pads are zero rows),
// contiguous: the chunked form's elementwise terms then run vectorised.
at::Tensor to_chunks(const at::Tensor& x, const DeltaRuleLayout& l) {
  std::vector<int64_t> pad_shape = x.sizes().vec();
  pad_shape[0] = 1;
  const at::Tensor rows =
      at::cat({x.to(at::kFloat), at::zeros(pad_shape, x.options().dtype(at::kFloat))})
          .index_select(0, l.chunk_rows);
  std::vector<int64_t> shape = {l.chunks, l.chunk_size};
  shape.insert(shape.end(), x.sizes().begin() + 1, x.sizes().end());
  return rows.view(shape).transpose(1, 2).contiguous();
}

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
  const at::Tensor order = at::tensor(layout.order, at::kLong).to(q.device());
  at::Tensor state = initial_state.defined() ? initial_state.to(at::kFloat).index_select(0, order)
                                             : at::zeros({S, H, dk, dv}, f32);
  const at::Tensor qn = l2_normalize(q).to(at::kFloat) * (1.0 / std::sqrt(static_cast<double>(dk)));
  const std::vector<at::Tensor> rule = chunked_delta_rule(
      to_chunks(qn, layout), to_chunks(l2_normalize(k), layout), to_chunks(v, layout),
      to_chunks(g, layout), to_chunks(beta, layout), state, layout);
  DeltaRuleOutput out;
  out.o = rule[0].transpose(1, 2).reshape({-1, H, dv}).index_select(0, layout.token_rows);
  at::Tensor inverse = at::empty_like(order);
  inverse.index_copy_(0, order, at::arange(S, order.options()));
  out.final_state = rule[1].index_select(0, inverse);
  return out;
}

DeltaRuleOutput recurrent_gated_delta_rule_step(const at::Tensor& q, const at::Tensor& k,
                                                const at::Tensor& v, const at::Tensor& g,
                                                const at::Tensor& beta, const at::Tensor& state) {
  const int64_t N = state.size(0), H = state.size(1), dk = state.size(2), dv = state.size(3);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  // Batched over (row, head) as [N * H, ...] matrix products: the state is read and written a few
  // times per step rather than once per elementwise term (a decode step is bound by its traffic).
  const at::Tensor qn = (l2_normalize(q).to(at::kFloat) * scale).reshape({N * H, 1, dk});
  const at::Tensor kn = l2_normalize(k).to(at::kFloat).reshape({N * H, dk, 1});
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
  return kernels::delta_rule_decode(fp32(l2_normalize(q).to(at::kFloat) * scale),
                                    fp32(l2_normalize(k)), fp32(v), fp32(g), fp32(beta), states,
                                    slots.contiguous());
}

}  // namespace verlpp::model
