// The sampler against distributions worked out by hand in this file: temperature, top_k
// (transformers TopKLogitsWarper) and top_p (TopPLogitsWarper) truncation, a chi-square
// goodness-of-fit test of 10,000 draws, greedy argmax and the log-probs before truncation.
#include "verlpp/rollout/sampling.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/rollout/prompts.h"

namespace verlpp::rollout {
namespace {

const std::vector<double> kLogits = {2.0, 1.5, 1.2, 1.0, 0.7, 0.3, 0.0, -0.5, -1.0, 0.9, 1.4, -2.0};

// The truncated distribution computed directly: scale by 1/T, keep the k largest, then walk the
// tokens from the most probable and keep each one while the probability of those before it is
// below top_p; renormalise.
std::vector<double> expected_distribution(double temperature, int64_t top_k, double top_p) {
  const size_t V = kLogits.size();
  std::vector<size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [](size_t a, size_t b) { return kLogits[a] > kLogits[b]; });
  const size_t k = top_k > 0 ? std::min<size_t>(static_cast<size_t>(top_k), V) : V;
  std::vector<double> p(V, 0.0);
  double z = 0.0;
  for (size_t r = 0; r < k; ++r) z += std::exp(kLogits[order[r]] / temperature);
  double before = 0.0;
  double kept = 0.0;
  for (size_t r = 0; r < k; ++r) {
    const double q = std::exp(kLogits[order[r]] / temperature) / z;
    if (before < top_p) {
      p[order[r]] = q;
      kept += q;
    }
    before += q;
  }
  for (double& x : p) x /= kept;
  return p;
}

// Upper 0.1% points of the chi-square distribution, df = 1..11.
double chi_square_critical(size_t df) {
  static const double table[] = {10.828, 13.816, 16.266, 18.467, 20.515, 22.458,
                                 24.322, 26.124, 27.877, 29.588, 31.264};
  return table[df - 1];
}

struct Case {
  double temperature;
  int64_t top_k;
  double top_p;
  size_t kept;  // tokens left after truncation (worked out by hand)
};

class SamplingDistribution : public ::testing::TestWithParam<Case> {};

TEST_P(SamplingDistribution, TenThousandDrawsPassChiSquare) {
  const Case c = GetParam();
  const std::vector<double> p = expected_distribution(c.temperature, c.top_k, c.top_p);
  ASSERT_EQ(static_cast<size_t>(std::count_if(p.begin(), p.end(), [](double x) { return x > 0; })),
            c.kept);
  const int64_t draws = 10000;
  const at::Tensor logits =
      at::tensor(kLogits, at::kDouble).to(at::kFloat).unsqueeze(0).expand({draws, -1}).contiguous();
  SamplerSettings s;
  s.temperature = c.temperature;
  s.top_k = c.top_k;
  s.top_p = c.top_p;
  const SampledTokens out = sample_tokens(logits, s, row_uniforms(1234, at::arange(draws), 0));
  const at::Tensor counts = at::bincount(out.tokens, {}, static_cast<int64_t>(kLogits.size()));
  // Bins with an expected count below 5 are merged into one, as the test requires.
  double chi2 = 0.0;
  double rest_expected = 0.0;
  double rest_observed = 0.0;
  size_t bins = 0;
  for (size_t v = 0; v < p.size(); ++v) {
    const double observed = static_cast<double>(counts[static_cast<int64_t>(v)].item<int64_t>());
    const double expected = p[v] * draws;
    if (p[v] == 0.0) {
      EXPECT_EQ(observed, 0.0) << "token " << v << " was truncated but drawn";
    } else if (expected < 5.0) {
      rest_expected += expected;
      rest_observed += observed;
    } else {
      chi2 += (observed - expected) * (observed - expected) / expected;
      ++bins;
    }
  }
  if (rest_expected > 0.0) {
    chi2 += (rest_observed - rest_expected) * (rest_observed - rest_expected) / rest_expected;
    ++bins;
  }
  EXPECT_LT(chi2, chi_square_critical(bins - 1)) << "bins " << bins;
}

INSTANTIATE_TEST_SUITE_P(Sampling, SamplingDistribution,
                         ::testing::Values(Case{0.7, 8, 0.9, 6}, Case{1.0, -1, 0.8, 6},
                                           Case{1.3, 5, 1.0, 5}, Case{0.5, -1, 1.0, 12}));

TEST(Sampling, LogProbsAreOfTheUntruncatedTemperatureSoftmax) {
  const double T = 0.7;
  const at::Tensor logits =
      at::tensor(kLogits, at::kDouble).to(at::kFloat).unsqueeze(0).repeat({64, 1});
  SamplerSettings s{false, T, 3, 0.5};
  const SampledTokens out = sample_tokens(logits, s, row_uniforms(7, at::arange(64), 0));
  double z = 0.0;
  for (double l : kLogits) z += std::exp(l / T);
  for (int64_t i = 0; i < 64; ++i) {
    const int64_t t = out.tokens[i].item<int64_t>();
    EXPECT_NEAR(out.logprobs[i].item<float>(), kLogits[static_cast<size_t>(t)] / T - std::log(z),
                1e-5);
  }
}

TEST(Sampling, GreedyTakesTheArgmaxWithLogProbsAtTheTemperature) {
  const at::Tensor logits = at::tensor({0.1f, 3.0f, -1.0f, 2.0f, 1.0f, 2.5f}).view({2, 3});
  const SampledTokens out =
      sample_tokens(logits, {true, 2.0, -1, 1.0}, row_uniforms(0, at::arange(2), 0));
  EXPECT_EQ(out.tokens[0].item<int64_t>(), 1);
  EXPECT_EQ(out.tokens[1].item<int64_t>(), 2);
  const double z1 = std::exp(2.0 / 2) + std::exp(1.0 / 2) + std::exp(2.5 / 2);
  EXPECT_NEAR(out.logprobs[1].item<float>(), 2.5 / 2 - std::log(z1), 1e-6);
}

// Temperature 0 is greedy with log-probs at verl's clamped temperature 1e-8, as the trainer's
// old_log_prob: the greedy token's log-prob is log(1 / (1 + sum exp((l - max) / 1e-8))) = 0 here
// (every other logit is at least 0.5 below the maximum).
TEST(Sampling, TemperatureZeroIsGreedyWithVerlsClampedLogProbs) {
  SamplingParams params;
  params.temperature = 0.0;
  const SamplerSettings settings = sampler_settings(params);
  EXPECT_TRUE(settings.greedy);
  EXPECT_EQ(settings.temperature, 1e-8);
  const at::Tensor logits = at::tensor({0.1f, 3.0f, -1.0f, 2.0f, 1.0f, 2.5f}).view({2, 3});
  const SampledTokens out = sample_tokens(logits, settings, row_uniforms(0, at::arange(2), 0));
  EXPECT_EQ(out.tokens[1].item<int64_t>(), 2);
  EXPECT_EQ(out.logprobs[0].item<float>(), 0.0f);
  EXPECT_EQ(out.logprobs[1].item<float>(), 0.0f);
}

// splitmix64 worked on the host with uint64 arithmetic for a few (seed, row, step).
double reference_uniform(std::uint64_t seed, std::uint64_t row, std::uint64_t step) {
  const auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  const std::uint64_t golden = 0x9E3779B97F4A7C15ULL;
  const std::uint64_t z = mix(row * golden + mix(seed * golden + step));
  return static_cast<double>(z >> 11) / 9007199254740992.0;
}

TEST(Sampling, RowUniformsAreSplitmix64OfSeedRowAndStep) {
  const at::Tensor rows = at::tensor(std::vector<int64_t>{0, 1, 7, 123456789, 4000000000LL});
  for (const std::uint64_t seed : {0ULL, 5ULL, 0xFFFFFFFFFFFFULL}) {
    for (const std::int64_t step : {0, 3}) {
      const at::Tensor u = row_uniforms(seed, rows, step);
      for (int64_t i = 0; i < rows.numel(); ++i) {
        const auto row = static_cast<std::uint64_t>(rows[i].item<int64_t>());
        const double want = reference_uniform(seed, row, static_cast<std::uint64_t>(step));
        EXPECT_EQ(u[i].item<double>(), want)
            << "seed " << seed << " row " << row << " step " << step;
        EXPECT_EQ(row_uniform(seed, rows[i].item<int64_t>(), step), want) << "host, row " << row;
      }
    }
  }
}

// A row's token depends on its logits and its own uniform only: sampling rows alone or in any
// batch gives the same tokens; another seed gives others.
TEST(Sampling, DrawsAreKeyedByRowNotByBatch) {
  const at::Tensor logits = at::randn({100, 50}, at::TensorOptions(at::kFloat));
  SamplerSettings s;
  const at::Tensor rows = at::arange(100);
  const at::Tensor all = sample_tokens(logits, s, row_uniforms(5, rows, 2)).tokens;
  const at::Tensor tail =
      sample_tokens(logits.narrow(0, 40, 60), s, row_uniforms(5, rows.narrow(0, 40, 60), 2)).tokens;
  EXPECT_TRUE(all.narrow(0, 40, 60).equal(tail));
  EXPECT_FALSE(all.equal(sample_tokens(logits, s, row_uniforms(6, rows, 2)).tokens));
  EXPECT_FALSE(all.equal(sample_tokens(logits, s, row_uniforms(5, rows, 3)).tokens));
}

// u close to 1 never selects a token that truncation removed at the end of the vocabulary.
TEST(Sampling, UniformNearOneStaysOnKeptTokens) {
  const at::Tensor logits = at::tensor({3.0f, 2.0f, -5.0f, -6.0f}).view({1, 4});
  SamplerSettings s;
  s.top_k = 2;
  const at::Tensor u = at::tensor({1.0 - 1e-16}, at::kDouble);
  EXPECT_EQ(sample_tokens(logits, s, u).tokens.item<int64_t>(), 1);
}

TEST(Sampling, BadSettingsAreErrors) {
  const at::Tensor u = row_uniforms(0, at::arange(1), 0);
  const at::Tensor logits = at::zeros({1, 4});
  EXPECT_THROW(sample_tokens(logits, {false, 0.0, -1, 1.0}, u), Error);
  EXPECT_THROW(sample_tokens(logits, {false, 1.0, -1, 0.0}, u), Error);
  EXPECT_THROW(sample_tokens(logits, {false, 1.0, -1, 1.5}, u), Error);
}

}  // namespace
}  // namespace verlpp::rollout
