// The chunked and recurrent gated delta rule (layers/delta_rule.h) against a float64 token-by-token
// reference written from the recurrence (models.md §3.1): head counts, head dims that are not
// powers of two, sequence lengths at and around the 64-token chunk boundary, zero-length and
// single-token sequences packed together, initial states, and gradients through autograd.
#include "verlpp/model/layers/delta_rule.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"

namespace verlpp::model {
namespace {

struct Inputs {
  at::Tensor q, k, v, g, beta;  // [T, H, dk], [T, H, dk], [T, H, dv], [T, H], [T, H]
};

Inputs random_inputs(int64_t T, int64_t H, int64_t dk, int64_t dv, uint64_t seed) {
  at::Generator gen = make_generator(at::kCPU, seed);
  Inputs in;
  in.q = at::randn({T, H, dk}, gen, at::kDouble);
  in.k = at::randn({T, H, dk}, gen, at::kDouble);
  in.v = at::randn({T, H, dv}, gen, at::kDouble);
  in.g = -(at::rand({T, H}, gen, at::kDouble) * 0.98 + 0.02);
  in.beta = at::rand({T, H}, gen, at::kDouble);
  return in;
}

// S <- e^g S; S <- S + k (beta (v - S^T k))^T; o = S^T q, per head, in float64, one token at a
// time; q, k l2-normalised (eps 1e-6) and q scaled by dk^-1/2. Returns o [len, H, dv] and the
// final state through `state` [H, dk, dv].
at::Tensor reference(const Inputs& in, int64_t start, int64_t len, at::Tensor& state) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(in.q.size(2)));
  std::vector<at::Tensor> out;
  for (int64_t t = start; t < start + len; ++t) {
    const at::Tensor q = in.q[t] / at::sqrt((in.q[t] * in.q[t]).sum(-1, true) + 1e-6) * scale;
    const at::Tensor k = in.k[t] / at::sqrt((in.k[t] * in.k[t]).sum(-1, true) + 1e-6);
    state = state * in.g[t].exp().view({-1, 1, 1});
    const at::Tensor memory = at::matmul(k.unsqueeze(1), state).squeeze(1);  // [H, dv]
    const at::Tensor delta = (in.v[t] - memory) * in.beta[t].unsqueeze(-1);
    state = state + k.unsqueeze(-1) * delta.unsqueeze(1);
    out.push_back(at::matmul(q.unsqueeze(1), state).squeeze(1));
  }
  if (out.empty()) return at::zeros({0, in.v.size(1), in.v.size(2)}, in.v.options());
  return at::stack(out);
}

struct Case {
  int64_t heads, dk, dv;
  std::vector<int64_t> lengths;
};

class DeltaRule : public ::testing::TestWithParam<Case> {};

double rel(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b).norm().item<double>() / (b.norm().item<double>() + 1e-30);
}

// The CPU, and CUDA where there is one (there the chunked form's scan runs in verlpp's kernel).
std::vector<at::Device> devices() {
  std::vector<at::Device> d = {at::kCPU};
  if (cuda_available()) d.emplace_back(at::kCUDA);
  return d;
}

TEST_P(DeltaRule, ChunkedMatchesFloat64Recurrence) {
  const Case& c = GetParam();
  const int64_t T = std::accumulate(c.lengths.begin(), c.lengths.end(), int64_t{0});
  const auto S = static_cast<int64_t>(c.lengths.size());
  const Inputs in = random_inputs(T, c.heads, c.dk, c.dv, 7);
  at::Generator gen = make_generator(at::kCPU, 5);
  const at::Tensor initial = at::randn({S, c.heads, c.dk, c.dv}, gen, at::kDouble) * 0.5;
  std::vector<int64_t> starts(c.lengths.size());
  std::exclusive_scan(c.lengths.begin(), c.lengths.end(), starts.begin(), int64_t{0});
  for (const bool with_initial : {false, true}) {
    for (const at::Device& device : devices()) {
      const DeltaRuleLayout layout = DeltaRuleLayout::build(starts, c.lengths, T, device);
      const auto f = [&](const at::Tensor& t) { return t.to(device, at::kFloat); };
      const DeltaRuleOutput result =
          chunk_gated_delta_rule(f(in.q), f(in.k), f(in.v), f(in.g), f(in.beta), layout,
                                 with_initial ? f(initial) : at::Tensor());
      const DeltaRuleOutput out{result.o.cpu(), result.final_state.cpu()};
      ASSERT_EQ(out.o.sizes(), (std::vector<int64_t>{T, c.heads, c.dv}));
      ASSERT_EQ(out.final_state.sizes(), (std::vector<int64_t>{S, c.heads, c.dk, c.dv}));
      for (int64_t s = 0; s < S; ++s) {
        at::Tensor state =
            with_initial ? initial[s].clone() : at::zeros({c.heads, c.dk, c.dv}, at::kDouble);
        const int64_t len = c.lengths[static_cast<size_t>(s)];
        const at::Tensor want = reference(in, starts[static_cast<size_t>(s)], len, state);
        if (len > 0) {
          EXPECT_LT(rel(out.o.narrow(0, starts[static_cast<size_t>(s)], len), want), 2e-6)
              << device << " sequence " << s << " (" << len << " tokens), initial " << with_initial;
        }
        EXPECT_LT(rel(out.final_state[s], state), 2e-6)
            << device << " final state of sequence " << s << " (" << len << " tokens)";
      }
    }
  }
}

TEST_P(DeltaRule, RecurrentStepMatchesFloat64Recurrence) {
  const Case& c = GetParam();
  const int64_t len = *std::max_element(c.lengths.begin(), c.lengths.end());
  const Inputs in = random_inputs(len, c.heads, c.dk, c.dv, 11);
  at::Tensor want_state = at::zeros({c.heads, c.dk, c.dv}, at::kDouble);
  const at::Tensor want = reference(in, 0, len, want_state);
  at::Tensor state = at::zeros({1, c.heads, c.dk, c.dv}, at::kFloat);
  for (int64_t t = 0; t < len; ++t) {
    const auto f = [t](const at::Tensor& x) { return x.narrow(0, t, 1).to(at::kFloat); };
    const DeltaRuleOutput step =
        recurrent_gated_delta_rule_step(f(in.q), f(in.k), f(in.v), f(in.g), f(in.beta), state);
    EXPECT_LT(rel(step.o[0], want[t]), 2e-6) << "token " << t;
    state = step.final_state;
  }
  EXPECT_LT(rel(state[0], want_state), 2e-6);
}

// The in-place update of some slots of a state tensor (the decode path; on CUDA verlpp's fused
// kernel, on the CPU the step above with a gather and a scatter): three sequences in slots 3, 0 and
// 4 of five, `len` steps, against the float64 recurrence; slots 1 and 2 stay bit-identical.
TEST_P(DeltaRule, InPlaceSlotUpdateMatchesFloat64Recurrence) {
  const Case& c = GetParam();
  const int64_t len = std::min<int64_t>(*std::max_element(c.lengths.begin(), c.lengths.end()), 8);
  const std::vector<int64_t> slot_ids = {3, 0, 4};
  const auto N = static_cast<int64_t>(slot_ids.size());
  std::vector<Inputs> in;
  for (int64_t n = 0; n < N; ++n) in.push_back(random_inputs(len, c.heads, c.dk, c.dv, 20 + n));
  at::Generator gen = make_generator(at::kCPU, 9);
  const at::Tensor initial = at::randn({5, c.heads, c.dk, c.dv}, gen, at::kDouble) * 0.5;
  for (const at::Device& device : devices()) {
    at::Tensor states = initial.to(device, at::kFloat);
    const at::Tensor slots = at::tensor(slot_ids, at::kLong).to(device);
    std::vector<at::Tensor> want_states;
    for (int64_t n = 0; n < N; ++n) want_states.push_back(initial[slot_ids[n]].clone());
    for (int64_t t = 0; t < len; ++t) {
      std::vector<at::Tensor> q, k, v, g, beta, want;
      for (int64_t n = 0; n < N; ++n) {
        const Inputs& x = in[static_cast<size_t>(n)];
        q.push_back(x.q[t]);
        k.push_back(x.k[t]);
        v.push_back(x.v[t]);
        g.push_back(x.g[t]);
        beta.push_back(x.beta[t]);
        want.push_back(reference(x, t, 1, want_states[static_cast<size_t>(n)])[0]);
      }
      const auto f = [&](const std::vector<at::Tensor>& parts) {
        return at::stack(parts).to(device, at::kFloat);
      };
      const at::Tensor o =
          recurrent_gated_delta_rule_update(f(q), f(k), f(v), f(g), f(beta), states, slots);
      EXPECT_LT(rel(o.cpu(), at::stack(want)), 2e-6) << device << " token " << t;
    }
    for (int64_t n = 0; n < N; ++n) {
      EXPECT_LT(rel(states[slot_ids[n]].cpu(), want_states[static_cast<size_t>(n)]), 2e-6)
          << device << " slot " << slot_ids[n];
    }
    for (int64_t untouched : {1, 2}) {
      EXPECT_TRUE(at::equal(states[untouched].cpu(), initial[untouched].to(at::kFloat)))
          << device << " slot " << untouched;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, DeltaRule,
                         ::testing::Values(Case{1, 3, 5, {1}}, Case{2, 12, 20, {7, 64, 1, 65}},
                                           Case{3, 24, 16, {0, 130, 63, 0, 2}},
                                           Case{4, 7, 9, {128, 129}}, Case{16, 128, 128, {3}},
                                           Case{2, 200, 33, {4}}, Case{1, 64, 100, {2}}));

// Gradients of q, k, v, g and beta (the chunked form's hand-written backward; on CUDA through the
// scan kernel both ways) against float64 autograd through the token-by-token reference, for
// packed sequences across chunk boundaries, empty and single-token ones among them.
void expect_gradients_match(const std::vector<int64_t>& lengths, int64_t H, int64_t dk, int64_t dv,
                            const at::Device& device) {
  const int64_t T = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
  std::vector<int64_t> starts(lengths.size());
  std::exclusive_scan(lengths.begin(), lengths.end(), starts.begin(), int64_t{0});
  const Inputs in = random_inputs(T, H, dk, dv, 3);
  at::Generator gen = make_generator(at::kCPU, 4);
  const at::Tensor weights = at::randn({T, H, dv}, gen, at::kDouble);
  std::vector<at::Tensor> leaves_ref, leaves;
  for (const at::Tensor* t : {&in.q, &in.k, &in.v, &in.g, &in.beta}) {
    leaves_ref.push_back(t->clone().requires_grad_(true));
    leaves.push_back(t->to(device, at::kFloat).requires_grad_(true));
  }
  const Inputs ref_in{leaves_ref[0], leaves_ref[1], leaves_ref[2], leaves_ref[3], leaves_ref[4]};
  std::vector<at::Tensor> parts;
  for (size_t s = 0; s < lengths.size(); ++s) {
    at::Tensor state = at::zeros({H, dk, dv}, at::kDouble);
    if (lengths[s] > 0) parts.push_back(reference(ref_in, starts[s], lengths[s], state));
  }
  (at::cat(parts) * weights).sum().backward();
  const DeltaRuleLayout layout = DeltaRuleLayout::build(starts, lengths, T, device);
  const DeltaRuleOutput out =
      chunk_gated_delta_rule(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4], layout);
  (out.o * weights.to(device, at::kFloat)).sum().backward();
  const char* names[] = {"q", "k", "v", "g", "beta"};
  for (size_t i = 0; i < leaves.size(); ++i) {
    EXPECT_LT(rel(leaves[i].grad().cpu(), leaves_ref[i].grad()), 1e-5)
        << names[i] << " on " << device << ", heads " << H << ", dk " << dk << ", dv " << dv;
  }
}

TEST(DeltaRuleGradients, MatchFloat64Autograd) {
  for (const at::Device& device : devices()) {
    expect_gradients_match({70, 5, 0, 1}, 2, 6, 10, device);
    expect_gradients_match({130, 64, 1, 0, 65}, 3, 40, 72, device);
  }
}

TEST(DeltaRuleLayoutTest, OrdersChunksStepMajorLongestFirst) {
  // Sequences of 3, 70 and 130 tokens at 0, 3 and 73 (chunks 1, 2 and 3 of 64).
  const DeltaRuleLayout l = DeltaRuleLayout::build({0, 3, 73}, {3, 70, 130}, 203, at::kCPU);
  EXPECT_EQ(l.order, (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(l.step_sizes, (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(l.step_offsets, (std::vector<int64_t>{0, 3, 5}));
  EXPECT_EQ(l.chunks, 6);
  // Chunk 1 (step 0, second longest) starts at token 3; chunk 3 (step 1, longest) at 73 + 64.
  EXPECT_EQ(l.chunk_rows[64].item<int64_t>(), 3);
  EXPECT_EQ(l.chunk_rows[3 * 64].item<int64_t>(), 137);
  EXPECT_EQ(l.chunk_rows[2 * 64 + 3].item<int64_t>(), 203);  // past sequence 0's end: padding
  EXPECT_EQ(l.token_offsets[72].item<int64_t>(), 69);
  EXPECT_THROW(DeltaRuleLayout::build({0}, {5}, 4, at::kCPU), Error);
}

}  // namespace
}  // namespace verlpp::model
