// Chunked log-prob/entropy: hand-worked values, and agreement with the unchunked formula (values
// and gradients).
#include "verlpp/model/logprob.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"

namespace verlpp::model {
namespace {

TEST(LogProb, HandWorkedTwoTokenVocabulary) {
  // logits = [0, ln 3]; at temperature 0.5 they become [0, ln 9]: p = [0.1, 0.9].
  const at::Tensor hidden = at::tensor({1.0f, 0.0f}).view({1, 2}).requires_grad_(true);
  const at::Tensor weight = at::tensor({0.0f, 0.0f, static_cast<float>(std::log(3.0)), 0.0f})
                                .view({2, 2})
                                .requires_grad_(true);
  const auto out = chunked_logprob_entropy(hidden, weight, at::tensor({1L}), 0.5);
  EXPECT_NEAR(out.logprobs.item<double>(), std::log(0.9), 1e-6);
  EXPECT_NEAR(out.entropy.item<double>(), -(0.1 * std::log(0.1) + 0.9 * std::log(0.9)), 1e-6);
  out.logprobs.sum().backward();
  // d logp / d logits = (onehot - p) / T = [-0.2, 0.2]; d/dW[v] = that * hidden.
  EXPECT_NEAR(weight.grad()[0][0].item<double>(), -0.2, 1e-6);
  EXPECT_NEAR(weight.grad()[1][0].item<double>(), 0.2, 1e-6);
  EXPECT_NEAR(weight.grad()[1][1].item<double>(), 0.0, 1e-7);
  // d/dhidden = sum_v g_v W[v] = 0.2 * [ln 3, 0].
  EXPECT_NEAR(hidden.grad()[0][0].item<double>(), 0.2 * std::log(3.0), 1e-6);
}

// sum_v p_v^2 for optimal_token_baseline: the two-token case by hand (p = [0.1, 0.9] at
// temperature 0.5: 0.01 + 0.81 = 0.82), and random logits against softmax squared in float64,
// across chunk boundaries.
TEST(LogProb, SumPiSquared) {
  const at::Tensor hidden = at::tensor({1.0f, 0.0f}).view({1, 2});
  const at::Tensor weight =
      at::tensor({0.0f, 0.0f, static_cast<float>(std::log(3.0)), 0.0f}).view({2, 2});
  EXPECT_NEAR(chunked_sum_pi_squared(hidden, weight, 0.5).item<double>(), 0.82, 1e-6);
  at::manual_seed(5);
  const at::Tensor h = at::randn({11, 8}) * 0.9;
  const at::Tensor w = at::randn({40, 8}) * 0.8;
  const at::Tensor p = at::softmax(at::matmul(h.to(at::kDouble), w.to(at::kDouble).t()) / 0.7, -1);
  const at::Tensor got = chunked_sum_pi_squared(h, w, 0.7, 4);
  EXPECT_LT((got.to(at::kDouble) - p.square().sum(-1)).abs().max().item<double>(), 1e-6);
  EXPECT_THROW(chunked_sum_pi_squared(h, w, 0.0), Error);
}

TEST(LogProb, ChunkedMatchesUnchunkedValuesAndGradients) {
  at::manual_seed(3);
  const int64_t T = 23, H = 16, V = 50;
  const at::Tensor h0 = at::randn({T, H}, at::kDouble) * 0.7;
  const at::Tensor w0 = at::randn({V, H}, at::kDouble) * 0.5;
  const at::Tensor targets = at::randint(0, V, {T}, at::kLong);
  const at::Tensor g_lp = at::randn({T}, at::kDouble);
  const at::Tensor g_ent = at::randn({T}, at::kDouble);

  auto run = [&](bool chunked, int64_t chunk) {
    const at::Tensor h = h0.clone().requires_grad_(true);
    const at::Tensor w = w0.clone().requires_grad_(true);
    const LogProbEntropy r = chunked
                                 ? chunked_logprob_entropy(h, w, targets, 0.8, true, chunk)
                                 : logprob_entropy_from_logits(at::matmul(h, w.t()), targets, 0.8);
    ((r.logprobs.to(at::kDouble) * g_lp).sum() + (r.entropy.to(at::kDouble) * g_ent).sum())
        .backward();
    return std::vector<at::Tensor>{r.logprobs.detach(), r.entropy.detach(), h.grad(), w.grad()};
  };
  const auto full = run(false, 0);
  for (int64_t chunk : {1, 5, 23, 1000}) {
    const auto c = run(true, chunk);
    for (size_t i = 0; i < full.size(); ++i) {
      EXPECT_LT(testing::max_abs_diff(c[i], full[i]), 1e-5) << "chunk " << chunk << " output " << i;
    }
  }
}

// Gathering at given ids (the distillation teacher's top-k) in the same chunked pass: values and
// gradients of logprobs and gathered against log_softmax of the full logits in float64, and the
// model's own top-k ids against at::topk of the full logits.
TEST(LogProb, GatheredAtIdsMatchFullLogits) {
  at::manual_seed(11);
  const int64_t T = 19, H = 12, V = 40, K = 5;
  const at::Tensor h0 = at::randn({T, H}, at::kDouble) * 0.7;
  const at::Tensor w0 = at::randn({V, H}, at::kDouble) * 0.5;
  const at::Tensor targets = at::randint(0, V, {T}, at::kLong);
  const at::Tensor ids = at::randint(0, V, {T, K}, at::kLong);  // repeats allowed
  const at::Tensor g_lp = at::randn({T}, at::kDouble);
  const at::Tensor g_at = at::randn({T, K}, at::kDouble);
  const double temperature = 0.9;

  const at::Tensor h = h0.clone().requires_grad_(true);
  const at::Tensor w = w0.clone().requires_grad_(true);
  const at::Tensor logp = at::log_softmax(at::matmul(h, w.t()) / temperature, -1);
  ((logp.gather(1, targets.unsqueeze(1)).squeeze(1) * g_lp).sum() +
   (logp.gather(1, ids) * g_at).sum())
      .backward();
  const at::Tensor want_top = std::get<1>(at::topk(logp.detach(), K, -1));
  for (int64_t chunk : {1, 4, 19}) {
    const at::Tensor hc = h0.clone().requires_grad_(true);
    const at::Tensor wc = w0.clone().requires_grad_(true);
    const GatheredLogProbs r =
        chunked_logprobs_at_ids(hc, wc, targets, ids, temperature, false, chunk);
    ((r.logprobs.to(at::kDouble) * g_lp).sum() + (r.gathered.to(at::kDouble) * g_at).sum())
        .backward();
    EXPECT_LT(testing::max_abs_diff(r.gathered, logp.gather(1, ids).detach()), 1e-5) << chunk;
    EXPECT_TRUE(at::equal(r.student_top_ids, want_top)) << chunk;
    EXPECT_LT(testing::max_abs_diff(hc.grad(), h.grad()), 1e-5) << chunk;
    EXPECT_LT(testing::max_abs_diff(wc.grad(), w.grad()), 1e-5) << chunk;
  }
}

TEST(LogProb, TopkLogProbsMatchFullLogits) {
  at::manual_seed(12);
  const at::Tensor h = at::randn({9, 6});
  const at::Tensor w = at::randn({30, 6});
  const at::Tensor logp = at::log_softmax(at::matmul(h, w.t()).to(at::kDouble) / 1.3, -1);
  const auto [values, indices] = at::topk(logp, 4, -1);
  const TopkLogProbs r = chunked_topk_logprobs(h, w, 4, 1.3, 2);
  EXPECT_TRUE(at::equal(r.ids, indices));
  EXPECT_LT(testing::max_abs_diff(r.logprobs, values), 1e-5);
  EXPECT_FALSE(r.logprobs.requires_grad());
  EXPECT_THROW(chunked_topk_logprobs(h, w, 31, 1.0), Error);
  EXPECT_THROW(chunked_topk_logprobs(h, w, 0, 1.0), Error);
}

TEST(LogProb, WithoutEntropyAndBadInput) {
  const at::Tensor h = at::randn({4, 8});
  const at::Tensor w = at::randn({10, 8});
  const auto r = chunked_logprob_entropy(h, w, at::zeros({4}, at::kLong), 1.0, false, 3);
  EXPECT_FALSE(r.entropy.defined());
  const auto full =
      logprob_entropy_from_logits(at::matmul(h, w.t()), at::zeros({4}, at::kLong), 1.0);
  EXPECT_LT(testing::max_abs_diff(r.logprobs, full.logprobs), 1e-5);
  EXPECT_THROW(chunked_logprob_entropy(h, w, at::zeros({3}, at::kLong), 1.0), Error);
  EXPECT_THROW(chunked_logprob_entropy(h, w, at::zeros({4}, at::kLong), 0.0), Error);
  EXPECT_THROW(chunked_logprob_entropy(h, at::randn({10, 7}), at::zeros({4}, at::kLong), 1.0),
               Error);
}

// CUDA bf16 (fp32 logits from the GEMM, the weight gradient accumulated over four chunks in fp32)
// against the unchunked formula (fp64 logits, fp32 softmax) on the same bf16-rounded inputs:
// log-probs and entropy within 1e-4, gradients within 2 % of their largest entry (bf16 rounding of
// the logit gradient and of the results).
TEST(LogProbGpu, Bf16ChunksMatchTheUnchunkedFormula) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::manual_seed(5);
  const int64_t T = 64, H = 32, V = 1000;
  const at::Tensor h0 = (at::randn({T, H}) * 0.7).to(at::kBFloat16);
  const at::Tensor w0 = (at::randn({V, H}) * 0.3).to(at::kBFloat16);
  const at::Tensor targets = at::randint(0, V, {T}, at::kLong);
  const at::Tensor g_lp = at::randn({T}, at::kDouble);
  const at::Tensor g_ent = at::randn({T}, at::kDouble);
  for (double temperature : {1.0, 0.7}) {
    const at::Tensor h = h0.to(at::kDouble).requires_grad_(true);
    const at::Tensor w = w0.to(at::kDouble).requires_grad_(true);
    const auto ref =
        logprob_entropy_from_logits(at::matmul(h, w.t()).to(at::kDouble), targets, temperature);
    const at::Tensor hg = h0.cuda().requires_grad_(true);
    const at::Tensor wg = w0.cuda().requires_grad_(true);
    const auto out = chunked_logprob_entropy(hg, wg, targets.cuda(), temperature, true, 16);
    ((out.logprobs.cpu().to(at::kDouble) * g_lp).sum() +
     (out.entropy.cpu().to(at::kDouble) * g_ent).sum())
        .backward();
    const at::Tensor ref_lp = ref.logprobs.to(at::kDouble);
    const at::Tensor ref_ent = ref.entropy.to(at::kDouble);
    ((ref_lp * g_lp).sum() + (ref_ent * g_ent).sum()).backward();
    EXPECT_LT(testing::max_abs_diff(out.logprobs.cpu(), ref_lp), 1e-4) << temperature;
    EXPECT_LT(testing::max_abs_diff(out.entropy.cpu(), ref_ent), 1e-4) << temperature;
    for (const auto& [got, want] :
         {std::pair{hg.grad(), h.grad()}, std::pair{wg.grad(), w.grad()}}) {
      EXPECT_EQ(got.scalar_type(), at::kBFloat16);
      EXPECT_LT(testing::max_abs_diff(got.cpu(), want), 0.02 * want.abs().max().item<double>())
          << temperature;
    }
  }
}

// CUDA fp32 (verlpp's log-prob kernels: one pass over each chunk's logits forward, one backward)
// against float64 autograd through the unchunked formula: vocabularies that are and are not a
// multiple of 4 (the kernel's float4 and scalar paths), temperature 1 and 0.6, log-probs, entropy
// and both gradients within fp32 rounding.
TEST(LogProbGpu, Fp32KernelMatchesFloat64) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::manual_seed(9);
  const int64_t T = 37, H = 24;
  for (const int64_t V : {1000, 1001}) {
    const at::Tensor h0 = at::randn({T, H}, at::kDouble) * 0.7;
    const at::Tensor w0 = at::randn({V, H}, at::kDouble) * 0.4;
    const at::Tensor targets = at::randint(0, V, {T}, at::kLong);
    const at::Tensor g_lp = at::randn({T}, at::kDouble);
    const at::Tensor g_ent = at::randn({T}, at::kDouble);
    for (const double temperature : {1.0, 0.6}) {
      const at::Tensor h = h0.clone().requires_grad_(true);
      const at::Tensor w = w0.clone().requires_grad_(true);
      const auto ref = logprob_entropy_from_logits(at::matmul(h, w.t()), targets, temperature);
      ((ref.logprobs * g_lp).sum() + (ref.entropy * g_ent).sum()).backward();
      const at::Tensor hg = h0.to(at::kCUDA, at::kFloat).requires_grad_(true);
      const at::Tensor wg = w0.to(at::kCUDA, at::kFloat).requires_grad_(true);
      const auto out = chunked_logprob_entropy(hg, wg, targets.cuda(), temperature, true, 10);
      ((out.logprobs * g_lp.to(at::kCUDA, at::kFloat)).sum() +
       (out.entropy * g_ent.to(at::kCUDA, at::kFloat)).sum())
          .backward();
      const std::string where =
          "V " + std::to_string(V) + ", temperature " + std::to_string(temperature);
      EXPECT_LT(testing::max_abs_diff(out.logprobs.cpu(), ref.logprobs), 1e-5) << where;
      EXPECT_LT(testing::max_abs_diff(out.entropy.cpu(), ref.entropy), 1e-5) << where;
      EXPECT_LT(testing::relative_diff(hg.grad(), h.grad()), 1e-5) << where;
      EXPECT_LT(testing::relative_diff(wg.grad(), w.grad()), 1e-5) << where;
    }
  }
}

}  // namespace
}  // namespace verlpp::model
