#include "verlpp/algo/rollout_correction.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/masked.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

constexpr double kSafety = 20.0;
double scalar(const at::Tensor& t) { return t.item<double>(); }

at::Tensor as_mask(const at::Tensor& mask, const at::Tensor& like) {
  return mask.to(like.scalar_type());
}

// The masked max (or min) over the tokens of every row: 0 for a row without tokens.
at::Tensor row_extreme(const at::Tensor& values, const at::Tensor& mask, bool max) {
  const double fill =
      max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  const at::Tensor filled = values.masked_fill(mask.logical_not(), fill);
  const at::Tensor extreme = max ? std::get<0>(filled.max(-1)) : std::get<0>(filled.min(-1));
  return at::where(extreme.isinf(), at::zeros_like(extreme), extreme);
}

double token_extreme(const at::Tensor& values, const at::Tensor& mask, bool max) {
  const double fill =
      max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  const at::Tensor filled = values.masked_fill(mask.logical_not(), fill);
  return scalar(max ? filled.max() : filled.min());
}

double unbiased_std(const at::Tensor& values) {
  return values.numel() > 1 ? scalar(values.std()) : 0.0;
}

// std of the values clamped to [lo, hi] over the masked tokens (0 for a single token).
double clamped_std(const at::Tensor& values, const at::Tensor& m, double lo, double hi) {
  if (scalar(m.sum()) <= 1.0) return 0.0;
  const at::Tensor c = at::clamp(values, lo, hi);
  const at::Tensor mean = masked_mean(c, m);
  return std::sqrt(std::max(scalar(masked_mean(c.square(), m) - mean.square()), 0.0));
}

// compute_is_metrics: the weights before truncation; `log_ratio` is per token (token level) or
// the per-row sum [batch, 1] (sequence level).
void add_is_metrics(const at::Tensor& w, const at::Tensor& log_ratio, const at::Tensor& m,
                    const RolloutCorrectionConfig& c, Metrics& metrics) {
  const double hi = c.rollout_is_threshold;
  const double lo = 1.0 / hi;
  const at::Tensor mb = m.ne(0);
  metrics["rollout_is_mean"] = scalar(masked_mean(w, m));
  if (*c.rollout_is == "sequence") {
    metrics["rollout_is_max"] = std::exp(std::min(scalar(log_ratio.max()), kSafety));
    metrics["rollout_is_min"] = std::exp(scalar(log_ratio.min()));
    metrics["rollout_is_ratio_fraction_high"] =
        scalar(log_ratio.gt(std::log(hi)).to(w.scalar_type()).mean());
    metrics["rollout_is_ratio_fraction_low"] =
        scalar(log_ratio.lt(std::log(lo)).to(w.scalar_type()).mean());
  } else {
    metrics["rollout_is_ratio_fraction_high"] =
        scalar(masked_mean(w.gt(hi).to(w.scalar_type()), m));
    metrics["rollout_is_ratio_fraction_low"] = scalar(masked_mean(w.lt(lo).to(w.scalar_type()), m));
    metrics["rollout_is_max"] = token_extreme(w, mb, true);
    metrics["rollout_is_min"] = token_extreme(w, mb, false);
  }
  metrics["rollout_is_std"] = clamped_std(w, m, lo, hi);
  // Effective sample size 1 / mean(w_n^2) of the clamped weights normalised to mean 1.
  const at::Tensor wc = at::clamp(w, lo, hi);
  const at::Tensor normalised = wc / (masked_mean(wc, m) + 1e-8);
  metrics["rollout_is_eff_sample_size"] = 1.0 / scalar(masked_mean(normalised.square(), m));
  const at::Tensor seq = masked_mean(w, m, -1);
  metrics["rollout_is_seq_mean"] = scalar(seq.mean());
  metrics["rollout_is_seq_std"] = unbiased_std(seq);
  metrics["rollout_is_seq_max"] = scalar(seq.max());
  metrics["rollout_is_seq_min"] = scalar(seq.min());
  metrics["rollout_is_seq_max_deviation"] = scalar((seq - 1.0).abs().max());
  metrics["rollout_is_seq_fraction_high"] = scalar(seq.gt(hi).to(w.scalar_type()).mean());
  metrics["rollout_is_seq_fraction_low"] = scalar(seq.lt(lo).to(w.scalar_type()).mean());
}

// compute_rollout_correction_weights: truncated (and optionally batch-normalised) IS weights.
at::Tensor is_weights(const at::Tensor& log_ratio, const at::Tensor& m,
                      const RolloutCorrectionConfig& c, Metrics& metrics) {
  at::Tensor w;
  at::Tensor log_ratio_for_metrics = log_ratio;
  if (*c.rollout_is == "token") {
    w = at::clamp(log_ratio, -kSafety, kSafety).exp();
  } else {
    log_ratio_for_metrics = masked_sum(log_ratio, m, -1).unsqueeze(-1);
    w = at::clamp(log_ratio_for_metrics, -kSafety, kSafety).exp().expand_as(log_ratio);
  }
  w = w * m;
  add_is_metrics(w, log_ratio_for_metrics, m, c, metrics);
  w = at::clamp_max(w, c.rollout_is_threshold).detach();
  if (!c.rollout_is_batch_normalize) return w;
  at::Tensor mean;
  if (*c.rollout_is == "token") {
    mean = masked_mean(w, m);
  } else {
    const at::Tensor rows = m.sum(-1).gt(0).to(w.scalar_type());
    mean = (masked_mean(w, m, -1) * rows).sum() / at::clamp_min(rows.sum(), 1e-8);
  }
  const double factor = scalar(mean);
  if (factor > 1e-8) {
    metrics["rollout_is_batch_norm_factor"] = factor;
    return w / factor;
  }
  metrics["rollout_is_batch_norm_factor"] = 1.0;
  return w;
}

// compute_rs_metrics for one option: `token_stat` per token (a sequence option's row statistic
// broadcast), `seq_stat` its row statistic ([batch]).
void add_rs_metrics(const std::string& option, const at::Tensor& token_stat,
                    const at::Tensor& seq_stat, bool sequence_level, const at::Tensor& m,
                    double upper, std::optional<double> lower, Metrics& metrics) {
  const std::string p = "rollout_rs_" + option + "_";
  const at::Tensor mb = m.ne(0);
  const at::Tensor valid_rows = mb.any(-1);
  const at::Tensor seq = seq_stat.masked_select(valid_rows);
  const auto fraction = [&](const at::Tensor& b) {
    return scalar(b.to(token_stat.scalar_type()).mean());
  };
  metrics[p + "mean"] = scalar(masked_mean(token_stat, m));
  const bool by_rows = sequence_level && seq.numel() > 0;
  metrics[p + "max"] = by_rows ? scalar(seq.max()) : token_extreme(token_stat, mb, true);
  metrics[p + "min"] = by_rows ? scalar(seq.min()) : token_extreme(token_stat, mb, false);
  if (by_rows) {
    metrics[p + "fraction_high"] = fraction(seq.gt(upper));
    metrics[p + "fraction_low"] = lower ? fraction(seq.lt(*lower)) : 0.0;
  } else {
    const auto type = token_stat.scalar_type();
    metrics[p + "fraction_high"] = scalar(masked_mean(token_stat.gt(upper).to(type), m));
    metrics[p + "fraction_low"] =
        lower ? scalar(masked_mean(token_stat.lt(*lower).to(type), m)) : 0.0;
  }
  metrics[p + "std"] = clamped_std(token_stat, m, lower.value_or(0.0), upper);
  const bool any = seq.numel() > 0;
  metrics[p + "seq_mean"] = any ? scalar(seq.mean()) : 0.0;
  metrics[p + "seq_std"] = any ? unbiased_std(seq) : 0.0;
  metrics[p + "seq_max"] = any ? scalar(seq.max()) : 0.0;
  metrics[p + "seq_min"] = any ? scalar(seq.min()) : 0.0;
  metrics[p + "seq_max_deviation"] = any ? scalar(seq.abs().max()) : 0.0;
  metrics[p + "seq_fraction_high"] = any ? fraction(seq.gt(upper)) : 0.0;
  if (lower || !any) metrics[p + "seq_fraction_low"] = any ? fraction(seq.lt(*lower)) : 0.0;
}

// compute_rollout_rejection_mask: the mask with every option's rejections removed.
at::Tensor rejection_mask(const at::Tensor& log_ratio, const at::Tensor& m,
                          const RolloutCorrectionConfig& c, Metrics& metrics) {
  const auto options = parse_rejection_options(*c.rollout_rs, c.rollout_rs_threshold);
  const at::Tensor r = at::clamp(log_ratio, -kSafety, kSafety);
  const at::Tensor mb = m.ne(0);
  const at::Tensor valid_rows = mb.any(-1);
  at::Tensor keep_all = at::ones_like(log_ratio);
  for (const RejectionOption& o : options) {
    const char k = o.name.back();
    const at::Tensor token = k == '1' ? -r : k == '2' ? 0.5 * r.square() : r.exp() - 1.0 - r;
    const bool k1 = o.lower.has_value();
    const double upper = k1 ? std::log(o.upper) : o.upper;
    const std::optional<double> lower =
        k1 ? std::optional<double>(std::log(*o.lower)) : std::nullopt;
    const bool sequence_level = o.name.rfind("token_", 0) != 0;
    at::Tensor seq_stat;
    if (o.name.rfind("seq_sum", 0) == 0) {
      seq_stat = masked_sum(token, m, -1);
    } else if (o.name.rfind("seq_mean", 0) == 0) {
      seq_stat = masked_mean(token, m, -1);
    } else if (o.name.rfind("seq_max", 0) == 0) {
      seq_stat = row_extreme(token, mb, true);
    } else {
      seq_stat = masked_mean(token, m, -1);
    }
    const at::Tensor stat = sequence_level ? seq_stat.unsqueeze(-1).expand_as(token) : token;
    at::Tensor keep = stat.le(upper);
    if (lower) keep = keep & stat.ge(*lower);
    const at::Tensor keep_f = keep.to(log_ratio.scalar_type());
    keep_all = keep_all * keep_f;
    add_rs_metrics(o.name, stat, seq_stat, sequence_level, m, upper, lower, metrics);
    const std::string p = "rollout_rs_" + o.name + "_";
    metrics[p + "masked_fraction"] = scalar(masked_mean(1.0 - keep_f, m));
    const at::Tensor row_kept = (keep.logical_not() & mb).any(-1).logical_not();
    const double rows = scalar(valid_rows.sum());
    metrics[p + "seq_masked_fraction"] =
        rows > 0 ? scalar((row_kept.logical_not() & valid_rows).sum()) / rows : 0.0;
  }
  metrics["rollout_rs_masked_fraction"] = scalar(masked_mean(1.0 - keep_all, m));
  const at::Tensor rejected_rows = (keep_all.gt(0.5).logical_not() & mb).any(-1);
  metrics["rollout_rs_seq_masked_fraction"] =
      scalar(rejected_rows.to(log_ratio.scalar_type()).mean());
  return keep_all;
}

void require_inputs(const at::Tensor& old_log_prob, const at::Tensor& rollout_log_prob,
                    const at::Tensor& response_mask) {
  const std::string fn = "rollout correction";
  require_dim(old_log_prob, 2, fn, "old_log_prob");
  require_same_shape(old_log_prob, "old_log_prob", rollout_log_prob, "rollout_log_probs", fn);
  require_same_shape(old_log_prob, "old_log_prob", response_mask, "response_mask", fn);
  if (!response_mask.ne(0).any().item<bool>()) {
    throw Error(fn + ": response_mask has no valid token");
  }
}

}  // namespace

Metrics offpolicy_metrics(const at::Tensor& old_log_prob, const at::Tensor& rollout_log_prob,
                          const at::Tensor& response_mask) {
  const at::Tensor m = as_mask(response_mask, old_log_prob);
  const at::Tensor rollout = rollout_log_prob.to(old_log_prob.scalar_type());
  Metrics out;
  // Perplexities: batch means of exp(-mean_t log p) per row.
  const at::Tensor train_mean = masked_mean(old_log_prob, m, -1);
  const at::Tensor rollout_mean = masked_mean(rollout, m, -1);
  out["training_ppl"] = scalar((-train_mean).exp().mean());
  out["training_log_ppl"] = scalar((-train_mean).mean());
  // KL(pi_rollout || pi_train): the direct estimator and k3 = exp(r) - r - 1.
  const at::Tensor r = old_log_prob - rollout;
  out["kl"] = scalar(masked_mean(rollout - old_log_prob, m));
  out["k3_kl"] = scalar(masked_mean(r.exp() - r - 1.0, m));
  out["rollout_ppl"] = scalar((-rollout_mean).exp().mean());
  out["rollout_log_ppl"] = scalar((-rollout_mean).mean());
  const at::Tensor log_ppl_diff = rollout_mean - train_mean;
  out["log_ppl_diff"] = scalar(log_ppl_diff.mean());
  out["log_ppl_abs_diff"] = scalar(log_ppl_diff.abs().mean());
  out["log_ppl_diff_max"] = scalar(log_ppl_diff.max());
  out["log_ppl_diff_min"] = scalar(log_ppl_diff.min());
  out["ppl_ratio"] = scalar(log_ppl_diff.exp().mean());
  // chi^2 divergences E[rho^2] - 1, per token and per sequence (rho = prod_t of the ratios).
  const at::Tensor rho = at::clamp(r, -kSafety, kSafety).exp();
  out["chi2_token"] = scalar(masked_mean(rho.square(), m)) - 1.0;
  const at::Tensor seq = at::clamp(masked_sum(r, m, -1), -kSafety, kSafety);
  out["chi2_seq"] = scalar((2.0 * seq).exp().mean()) - 1.0;
  return out;
}

RolloutCorrectionResult compute_rollout_correction(const at::Tensor& old_log_prob,
                                                   const at::Tensor& rollout_log_prob,
                                                   const at::Tensor& response_mask,
                                                   const RolloutCorrectionConfig& config) {
  validate_rollout_correction(config);
  require_inputs(old_log_prob, rollout_log_prob, response_mask);
  const at::Tensor old = old_log_prob.detach();
  const at::Tensor m = as_mask(response_mask, old);
  const at::Tensor log_ratio = old - rollout_log_prob.detach().to(old.scalar_type());
  Metrics metrics;
  RolloutCorrectionResult out;
  if (config.rollout_is) out.rollout_is_weights = is_weights(log_ratio, m, config, metrics);
  out.response_mask = response_mask;
  if (config.rollout_rs) {
    const at::Tensor keep = rejection_mask(log_ratio, m, config, metrics);
    out.response_mask = (m * keep).to(response_mask.scalar_type());
  }
  const Metrics offpolicy = offpolicy_metrics(old, rollout_log_prob.detach(), response_mask);
  metrics.insert(offpolicy.begin(), offpolicy.end());
  for (const auto& [key, value] : metrics) out.metrics["rollout_corr/" + key] = value;
  return out;
}

}  // namespace verlpp::algo
