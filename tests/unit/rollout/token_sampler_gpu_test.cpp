// CUDA: the one-kernel sampler (kernels/token_sampler.h) against inverse-CDF sampling worked in
// float64 on the host from the same fp32 scaled logits: the token of every row whose draw is not
// within 1e-6 of the total from a cumulative boundary (fp32 sums over 151,936 entries may be off
// by that much; half the rows or more are that far), and log_softmax of the token; over Qwen3's
// vocabulary (32 chunks of 4,748 entries, two tiles each), in fp32, bf16 and fp16, at temperatures
// 1 and 0.7, through rollout::sample_tokens (which must take the kernel: equal results). Also a row
// that is NaN, a draw at the top of the last token with probability, and the binding's one-line
// error.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/token_sampler.h"
#include "verlpp/rollout/sampling.h"

namespace verlpp::kernels {
namespace {

bool kernel_built() {
  const at::Tensor logits = at::zeros({1, 4}, at::TensorOptions().device(at::kCUDA));
  return can_sample_tokens(logits, at::zeros({1}, logits.options().dtype(at::kDouble)));
}

// The float64 draw for one row: {token, distance of u * total from the nearest boundary / total}.
std::pair<int64_t, double> reference_draw(const at::Tensor& x, double u) {
  const at::Tensor e = (x - x.max()).exp();
  const at::Tensor cdf = e.cumsum(0);
  const double total = cdf[-1].item<double>();
  const double target = u * total;
  const int64_t token =
      at::searchsorted(cdf, at::full({1}, target, cdf.options()), false, true).item<int64_t>();
  double gap = std::abs(cdf[token].item<double>() - target);
  if (token > 0) gap = std::min(gap, std::abs(cdf[token - 1].item<double>() - target));
  return {token, gap / total};
}

void check_dtype(at::ScalarType dtype, double temperature, at::Generator& gen) {
  const int64_t N = 64, V = 151936;
  const at::Tensor logits =
      (at::randn({N, V}, gen, at::kDouble) * 3).to(at::TensorOptions(at::kCUDA).dtype(dtype));
  const at::Tensor uniforms = at::rand({N}, gen, at::kDouble).to(at::kCUDA);
  rollout::SamplerSettings settings;
  settings.temperature = temperature;
  const rollout::SampledTokens got = rollout::sample_tokens(logits, settings, uniforms);
  const KernelSample direct = sample_tokens(logits, temperature, uniforms);
  EXPECT_TRUE(at::equal(got.tokens, direct.tokens)) << "rollout::sample_tokens took another path";
  // x as ATen scales it: the fp32 logits times the fp32 reciprocal of the temperature.
  const float inverse = 1.0f / static_cast<float>(temperature);
  const at::Tensor x = (logits.to(at::kFloat) * inverse).cpu().to(at::kDouble);
  const at::Tensor tokens = got.tokens.cpu(), logprobs = got.logprobs.cpu();
  int64_t compared = 0;
  for (int64_t r = 0; r < N; ++r) {
    const auto [want, gap] = reference_draw(x[r], uniforms[r].item<double>());
    const int64_t token = tokens[r].item<int64_t>();
    const double want_logprob = at::log_softmax(x[r], 0)[token].item<double>();
    EXPECT_NEAR(logprobs[r].item<double>(), want_logprob, 2e-5) << c10::toString(dtype);
    if (gap < 1e-6) continue;
    ++compared;
    EXPECT_EQ(token, want) << c10::toString(dtype) << " row " << r;
  }
  EXPECT_GE(compared, N / 2) << "too many draws near a boundary to test";
}

TEST(TokenSamplerGpu, MatchesFloat64InverseCdf) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!kernel_built()) GTEST_SKIP() << "built without the kernel";
  at::Generator gen = make_generator(at::kCPU, 71);
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16, at::kHalf}) {
    for (const double temperature : {1.0, 0.7}) check_dtype(dtype, temperature, gen);
  }
}

TEST(TokenSamplerGpu, NanRowAndTopDraw) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  if (!kernel_built()) GTEST_SKIP() << "built without the kernel";
  const double inf = std::numeric_limits<double>::infinity();
  // Row 0: one NaN. Row 1: only tokens 2 and 3 possible, u just below 1: token 3, never a
  // token of probability 0 after it.
  at::Tensor logits = at::full({2, 10}, -inf, at::kDouble);
  logits[0].fill_(0.5);
  logits[0][4] = std::nan("");
  logits[1][2] = 1.0;
  logits[1][3] = 0.0;
  const at::Tensor uniforms =
      at::tensor({0.5, 1.0 - std::ldexp(1.0, -53)}, at::kDouble).to(at::kCUDA);
  const KernelSample got = sample_tokens(logits.to(at::kCUDA, at::kFloat), 1.0, uniforms);
  EXPECT_EQ(got.tokens[0].item<int64_t>(), 9);
  EXPECT_TRUE(std::isnan(got.logprobs[0].item<float>()));
  EXPECT_EQ(got.tokens[1].item<int64_t>(), 3);
  EXPECT_NEAR(got.logprobs[1].item<double>(), -1.0 - std::log1p(std::exp(-1.0)), 1e-6);
}

TEST(TokenSamplerGpu, WrongInputIsOneLineError) {
  try {
    sample_tokens(at::zeros({2, 4}), 1.0, at::zeros({2}, at::kDouble));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("token sampler kernel"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace verlpp::kernels
