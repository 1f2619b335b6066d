// kernels/invariant_ops.h: each operation against a float64 reference of its formula (within fp32
// rounding), and its batch invariance: a row computed inside calls of other sizes, at other
// positions and with other neighbours has the same bits.
#include "verlpp/kernels/invariant_ops.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "verlpp/core/device.h"
#include "verlpp/core/error.h"

namespace verlpp::kernels {
namespace {

at::Tensor randn(std::vector<int64_t> shape, uint64_t seed) {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
  return at::randn(shape, g, at::kFloat);
}

TEST(InvariantLinear, MatchesFloat64AndEachRowIgnoresItsBatch) {
  const at::Tensor x = randn({13, 70}, 1), w = randn({9, 70}, 2), b = randn({9}, 3);
  const at::Tensor y = invariant_linear(x, w, b, at::kFloat);
  const at::Tensor want = at::addmm(b.to(at::kDouble), x.to(at::kDouble), w.to(at::kDouble).t());
  EXPECT_LT((y.to(at::kDouble) - want).abs().max().item<double>(), 1e-5);
  for (const auto& [first, rows] : {std::pair{0L, 1L}, {5L, 3L}, {12L, 1L}, {2L, 11L}}) {
    const at::Tensor part = invariant_linear(x.narrow(0, first, rows), w, b, at::kFloat);
    EXPECT_TRUE(part.equal(y.narrow(0, first, rows))) << "rows " << first << "+" << rows;
  }
  const at::Tensor shuffled = invariant_linear(x.flip(0), w, b, at::kFloat);
  EXPECT_TRUE(shuffled.flip(0).equal(y));
  // bf16 inputs: the same products in fp32 from the rounded inputs, rounded once.
  const at::Tensor xb = x.to(at::kBFloat16), wb = w.to(at::kBFloat16);
  const at::Tensor yb = invariant_linear(xb, wb, at::Tensor(), at::kBFloat16);
  EXPECT_EQ(yb.scalar_type(), at::kBFloat16);
  const at::Tensor wantb = at::matmul(xb.to(at::kDouble), wb.to(at::kDouble).t());
  EXPECT_LT((yb.to(at::kDouble) - wantb).abs().max().item<double>(),
            wantb.abs().max().item<double>() / 128);
  EXPECT_THROW(invariant_linear(x, w.narrow(1, 0, 69), b, at::kFloat), Error);
}

// Reference: softmax(q k^T scale) v in float64 over keys [start, start + count).
at::Tensor reference_row(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, int64_t i,
                         int64_t h, int64_t kvh, int64_t start, int64_t count, double scale) {
  const at::Tensor qi = q[i][h].to(at::kDouble);
  const at::Tensor ks = k.narrow(0, start, count).select(1, kvh).to(at::kDouble);
  const at::Tensor vs = v.narrow(0, start, count).select(1, kvh).to(at::kDouble);
  const at::Tensor p = at::softmax(at::matmul(ks, qi) * scale, 0);
  return at::matmul(p, vs);
}

TEST(InvariantAttention, MatchesFloat64PerQueryAndIgnoresWhereItsKeysSit) {
  const int64_t H = 4, KV = 2, d = 12, Nk = 20;
  const at::Tensor q = randn({3, H, d}, 4), k = randn({Nk, KV, d}, 5), v = randn({Nk, KV, d}, 6);
  const std::vector<int64_t> start = {0, 4, 19}, count = {1, 16, 1};
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const at::Tensor out = invariant_attention(q, k, v, at::tensor(start, at::kLong),
                                             at::tensor(count, at::kLong), scale);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t h = 0; h < H; ++h) {
      const at::Tensor want = reference_row(q, k, v, i, h, h / 2, start[i], count[i], scale);
      EXPECT_LT((out[i][h].to(at::kDouble) - want).abs().max().item<double>(), 1e-6)
          << "query " << i << " head " << h;
    }
  }
  // Query 1 alone, its 16 keys copied behind 7 other rows: the same bits.
  const at::Tensor moved_k = at::cat({randn({7, KV, d}, 7), k.narrow(0, 4, 16)});
  const at::Tensor moved_v = at::cat({randn({7, KV, d}, 8), v.narrow(0, 4, 16)});
  const at::Tensor alone = invariant_attention(q.narrow(0, 1, 1), moved_k, moved_v,
                                               at::tensor({7L}), at::tensor({16L}), scale);
  EXPECT_TRUE(alone.equal(out.narrow(0, 1, 1)));
  EXPECT_THROW(invariant_attention(q, k, v, at::tensor(start, at::kLong),
                                   at::tensor(std::vector<int64_t>{1, 16, 2}, at::kLong), scale),
               Error);
  EXPECT_THROW(invariant_attention(q, k, v, at::tensor(start, at::kLong),
                                   at::tensor(std::vector<int64_t>{0, 16, 1}, at::kLong), scale),
               Error);
}

TEST(InvariantRmsNorm, MatchesFloat64AndEachRowIgnoresItsBatch) {
  const at::Tensor x = randn({6, 40}, 9);
  const at::Tensor n = invariant_rms_normalized(x, 1e-6);
  const at::Tensor xd = x.to(at::kDouble);
  const at::Tensor want = xd * at::rsqrt(xd.pow(2).mean(-1, true) + 1e-6);
  EXPECT_LT((n.to(at::kDouble) - want).abs().max().item<double>(), 1e-6);
  EXPECT_TRUE(invariant_rms_normalized(x.narrow(0, 3, 2), 1e-6).equal(n.narrow(0, 3, 2)));
  EXPECT_EQ(invariant_rms_normalized(x.to(at::kBFloat16), 1e-6).scalar_type(), at::kFloat);
}

TEST(InvariantSilu, MatchesFloat64AndEachElementIgnoresItsPosition) {
  const at::Tensor x = randn({10001}, 10) * 8;
  const at::Tensor y = invariant_silu(x);
  const at::Tensor xd = x.to(at::kDouble);
  EXPECT_LT((y.to(at::kDouble) - xd * at::sigmoid(xd)).abs().max().item<double>(), 1e-5);
  EXPECT_TRUE(invariant_silu(x.narrow(0, 17, 33)).equal(y.narrow(0, 17, 33)));
  EXPECT_EQ(invariant_silu(x.to(at::kBFloat16)).scalar_type(), at::kBFloat16);
}

TEST(InvariantCosSin, MatchesFloat64AndEachAngleIgnoresItsPosition) {
  const at::Tensor a = randn({4097}, 11) * 100;
  const auto [c, s] = invariant_cos_sin(a);
  EXPECT_LT((c.to(at::kDouble) - at::cos(a.to(at::kDouble))).abs().max().item<double>(), 1e-6);
  EXPECT_LT((s.to(at::kDouble) - at::sin(a.to(at::kDouble))).abs().max().item<double>(), 1e-6);
  const auto [c2, s2] = invariant_cos_sin(a.narrow(0, 3, 5));
  EXPECT_TRUE(c2.equal(c.narrow(0, 3, 5)));
  EXPECT_TRUE(s2.equal(s.narrow(0, 3, 5)));
}

TEST(InvariantTokenLogProbs, MatchesFloat64AndEachRowIgnoresItsBatch) {
  const at::Tensor z = randn({5, 1003}, 12) * 4;
  const at::Tensor t = at::tensor(std::vector<int64_t>{0, 1002, 17, 500, 3}, at::kLong);
  const at::Tensor lp = invariant_token_logprobs(z * 0.7, t, 0.7);
  const at::Tensor want = at::log_softmax(z.to(at::kDouble), -1).gather(1, t.unsqueeze(1));
  EXPECT_LT((lp.to(at::kDouble) - want.squeeze(1)).abs().max().item<double>(), 2e-6);
  EXPECT_TRUE(invariant_token_logprobs(z.narrow(0, 2, 2) * 0.7, t.narrow(0, 2, 2), 0.7)
                  .equal(lp.narrow(0, 2, 2)));
  EXPECT_THROW(invariant_token_logprobs(z, at::tensor(std::vector<int64_t>{0, 1, 2, 3, 1003}), 1.0),
               Error);
  EXPECT_THROW(invariant_token_logprobs(z.to(at::kDouble), t, 1.0), Error);
}

}  // namespace
}  // namespace verlpp::kernels

namespace verlpp::kernels {
namespace {

// CUDA (skipped without a GPU): bf16, the shapes of Qwen3-0.6B's projections and attention.
at::Tensor cuda_randn(std::vector<int64_t> shape, uint64_t seed) {
  return randn(std::move(shape), seed).to(at::Device(at::kCUDA, 0), at::kBFloat16);
}

TEST(InvariantOpsGpu, LinearRowsIgnoreTheirBatch) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const at::Tensor x = cuda_randn({300, 1024}, 21), w = cuda_randn({384, 1024}, 22);
  const at::Tensor b = cuda_randn({384}, 23);
  ASSERT_TRUE(can_run_invariant_cuda(x));
  for (const at::ScalarType out : {at::kBFloat16, at::kFloat}) {
    const at::Tensor bias = out == at::kFloat ? at::Tensor() : b;
    const at::Tensor y = invariant_linear(x, w, bias, out);
    at::Tensor want = at::matmul(x.to(at::kDouble), w.to(at::kDouble).t());
    if (bias.defined()) want = want + bias.to(at::kDouble);
    EXPECT_LT((y.to(at::kDouble) - want).abs().max().item<double>(),
              want.abs().max().item<double>() / 64);
    for (const auto& [first, rows] :
         {std::pair{0L, 1L}, {5L, 3L}, {127L, 2L}, {200L, 100L}, {299L, 1L}}) {
      EXPECT_TRUE(
          invariant_linear(x.narrow(0, first, rows), w, bias, out).equal(y.narrow(0, first, rows)))
          << "rows " << first << "+" << rows << " out " << c10::toString(out);
    }
  }
}

TEST(InvariantOpsGpu, AttentionMatchesFloat64AndTheDecodeKernelOverPages) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const int64_t H = 16, KV = 8, d = 128, Nk = 1200;
  const at::Tensor q = cuda_randn({3, H, d}, 24), k = cuda_randn({Nk, KV, d}, 25);
  const at::Tensor v = cuda_randn({Nk, KV, d}, 26);
  const std::vector<int64_t> start = {0, 100, 400}, count = {1, 300, 700};
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const at::Tensor out = invariant_attention(q, k, v, at::tensor(start, at::kLong),
                                             at::tensor(count, at::kLong), scale);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t h = 0; h < H; h += 5) {
      const at::Tensor want =
          reference_row(q.cpu(), k.cpu(), v.cpu(), i, h, h / 2, start[i], count[i], scale);
      EXPECT_LT((out[i][h].cpu().to(at::kDouble) - want).abs().max().item<double>(), 2e-2)
          << "query " << i << " head " << h;
    }
  }
  // Query 2 alone, and over a paged cache holding its 700 keys in scrambled pages of 16.
  const at::Tensor alone =
      invariant_attention(q.narrow(0, 2, 1), k, v, at::tensor({400L}), at::tensor({700L}), scale);
  EXPECT_TRUE(alone.equal(out.narrow(0, 2, 1)));
  const int64_t pages = (700 + 15) / 16;
  const at::Tensor order = at::randperm(pages, at::kLong);
  at::Tensor k_cache = at::zeros({pages * 16, KV, d}, k.options());
  at::Tensor v_cache = at::zeros_like(k_cache);
  for (int64_t p = 0; p < pages; ++p) {
    const int64_t n = std::min<int64_t>(16, 700 - p * 16);
    const int64_t slot = order[p].item<int64_t>();
    k_cache.narrow(0, slot * 16, n).copy_(k.narrow(0, 400 + p * 16, n));
    v_cache.narrow(0, slot * 16, n).copy_(v.narrow(0, 400 + p * 16, n));
  }
  const auto dev = q.device();
  const at::Tensor paged = invariant_decode_attention_paged(
      q.narrow(0, 2, 1), k_cache, v_cache, order.to(dev, at::kInt),
      at::zeros({1}, at::kInt).to(dev), 16, at::full({1}, 700, at::kInt).to(dev), 1024, scale);
  EXPECT_TRUE(paged.equal(out.narrow(0, 2, 1)));
}

}  // namespace
}  // namespace verlpp::kernels
