#include "verlpp/rollout/sampling.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "verlpp/core/error.h"
#include "verlpp/core/splitmix64.h"
#include "verlpp/kernels/invariant_ops.h"
#include "verlpp/kernels/token_sampler.h"
#include "verlpp/model/batch_invariant.h"

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

// splitmix64's output function on int64 tensors (two's-complement wrap-around; logical right shifts
// as arithmetic shifts masked to the low bits).
at::Tensor splitmix64_output(at::Tensor z) {
  const auto shift_right = [](const at::Tensor& x, int64_t bits) {
    return x.__rshift__(bits).bitwise_and((int64_t{1} << (64 - bits)) - 1);
  };
  z = z.bitwise_xor(shift_right(z, 30)).mul(static_cast<int64_t>(0xBF58476D1CE4E5B9ULL));
  z = z.bitwise_xor(shift_right(z, 27)).mul(static_cast<int64_t>(0x94D049BB133111EBULL));
  return z.bitwise_xor(shift_right(z, 31));
}

// The first token whose cumulative probability exceeds u·total, total = the row's sum. The target
// stays below the total so that it lands on a token of non-zero probability.
at::Tensor inverse_cdf_draw(const at::Tensor& probs, const at::Tensor& uniforms) {
  const at::Tensor cdf = probs.cumsum(-1);
  const at::Tensor total = cdf.narrow(-1, cdf.size(-1) - 1, 1);
  const at::Tensor target = at::minimum(
      (uniforms.to(cdf.device(), at::kDouble).unsqueeze(-1) * total.to(at::kDouble)).to(at::kFloat),
      at::nextafter(total, at::zeros_like(total)));
  // NaN probabilities (a model with non-finite weights) find no place in the CDF (index V): kept
  // in range here, reported by response_batch.
  return at::clamp_max(at::searchsorted(cdf, target, /*out_int32=*/false, /*right=*/true),
                       cdf.size(-1) - 1)
      .squeeze(-1);
}

// Whether top_k keeps fewer than the `vocab` entries.
bool top_k_truncates(const SamplerSettings& settings, int64_t vocab) {
  return settings.top_k > 0 && settings.top_k < vocab;
}

}  // namespace

at::Tensor row_uniforms(std::uint64_t seed, const at::Tensor& row_ids, std::int64_t step) {
  // Distinct streams per (seed, step) first, then per row: z = mix(mix(seed, step) + row·golden).
  const std::uint64_t stream = splitmix64(seed, static_cast<std::uint64_t>(step));
  const at::Tensor z = splitmix64_output(row_ids.to(at::kLong)
                                             .mul(static_cast<int64_t>(kSplitmix64Golden))
                                             .add(static_cast<int64_t>(stream)));
  const at::Tensor top53 = z.__rshift__(11).bitwise_and((int64_t{1} << 53) - 1);
  return top53.to(at::kDouble).mul(1.0 / static_cast<double>(int64_t{1} << 53));
}

double row_uniform(std::uint64_t seed, std::int64_t row_id, std::int64_t step) {
  const std::uint64_t stream = splitmix64(seed, static_cast<std::uint64_t>(step));
  const std::uint64_t z = splitmix64(static_cast<std::uint64_t>(row_id), stream);
  return static_cast<double>(z >> 11) / static_cast<double>(std::uint64_t{1} << 53);
}

at::Tensor truncated_logits(const at::Tensor& logits, const SamplerSettings& settings) {
  check(settings);
  const double inf = std::numeric_limits<double>::infinity();
  at::Tensor scaled = logits.to(at::kFloat) / settings.temperature;
  const int64_t V = scaled.size(-1);
  if (top_k_truncates(settings, V)) {
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
                            const at::Tensor& uniforms) {
  check(settings);
  const double temperature = std::max(settings.temperature, kMinLogProbTemperature);
  const bool truncated = top_k_truncates(settings, logits.size(-1)) || settings.top_p < 1.0;
  SampledTokens out;
  if (!settings.greedy && !truncated) {
    const at::Tensor u = uniforms.to(logits.device(), at::kDouble).contiguous();
    if (kernels::can_sample_tokens(logits, u)) {
      kernels::KernelSample drawn = kernels::sample_tokens(logits, settings.temperature, u);
      out = {drawn.tokens, drawn.logprobs};
    }
  }
  if (!out.tokens.defined()) {
    out.tokens =
        settings.greedy
            ? logits.argmax(-1)
            : inverse_cdf_draw(at::softmax(truncated_logits(logits, settings), -1), uniforms);
  }
  if (model::batch_invariant()) {
    // The trainer's function for the same tokens, so that the two agree bit for bit.
    out.logprobs =
        kernels::invariant_token_logprobs(logits.to(at::kFloat), out.tokens, temperature);
  } else if (!out.logprobs.defined()) {
    const at::Tensor logp = at::log_softmax(logits.to(at::kFloat) / temperature, -1);
    out.logprobs = logp.gather(-1, out.tokens.unsqueeze(-1)).squeeze(-1);
  }
  return out;
}

}  // namespace verlpp::rollout
