#include "verlpp/rollout/sampling.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <limits>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

namespace {

void check(const SamplerSettings& s) {
  if (!s.greedy && !(s.temperature > 0.0)) {
    throw Error(fmt::format("sampling: temperature {} must be > 0", s.temperature));
  }
  if (!(s.top_p > 0.0 && s.top_p <= 1.0)) {
    throw Error(fmt::format("sampling: top_p {} must be in (0, 1]", s.top_p));
  }
}

constexpr double kMinExponential = 1e-20;  // keeps p / E finite when the draw is 0

}  // namespace

at::Tensor truncated_logits(const at::Tensor& logits, const SamplerSettings& settings) {
  check(settings);
  const double inf = std::numeric_limits<double>::infinity();
  at::Tensor scaled = logits.to(at::kFloat) / settings.temperature;
  const int64_t V = scaled.size(-1);
  if (settings.top_k > 0 && settings.top_k < V) {
    const at::Tensor kth =
        std::get<0>(scaled.topk(settings.top_k, -1)).narrow(-1, settings.top_k - 1, 1);
    scaled = scaled.masked_fill(scaled.lt(kth), -inf);
  }
  if (settings.top_p < 1.0) {
    const auto [sorted, order] = scaled.sort(-1, /*descending=*/false);
    const at::Tensor cumulative = at::softmax(sorted, -1).cumsum(-1);
    at::Tensor drop = cumulative.le(1.0 - settings.top_p);
    drop.narrow(-1, V - 1, 1).fill_(false);
    scaled = scaled.masked_fill(at::empty_like(drop).scatter_(-1, order, drop), -inf);
  }
  return scaled;
}

SampledTokens sample_tokens(const at::Tensor& logits, const SamplerSettings& settings,
                            at::Generator& generator) {
  check(settings);
  const double temperature = settings.temperature > 0.0 ? settings.temperature : 1.0;
  const at::Tensor logp = at::log_softmax(logits.to(at::kFloat) / temperature, -1);
  at::Tensor tokens;
  if (settings.greedy) {
    tokens = logits.argmax(-1);
  } else {
    const at::Tensor probs = at::softmax(truncated_logits(logits, settings), -1);
    at::Tensor race = at::empty_like(probs).exponential_(1.0, generator);
    tokens = (probs / race.clamp_min_(kMinExponential)).argmax(-1);
  }
  return {tokens, logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)};
}

}  // namespace verlpp::rollout
