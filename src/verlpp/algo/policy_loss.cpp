#include "verlpp/algo/policy_loss.h"

#include <ATen/ATen.h>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/masked.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

double scalar(const at::Tensor& t) { return t.detach().item<double>(); }

// Validated inputs: the mask in log_prob's dtype and the advantages/old log-probs as constants.
struct Prepared {
  at::Tensor log_prob;
  at::Tensor old_log_prob;
  at::Tensor advantages;
  at::Tensor mask;
};

Prepared prepare(const PolicyLossInputs& in, const std::string& mode) {
  const std::string fn = "policy_loss.loss_mode " + mode;
  require_dim(in.log_prob, 2, fn, "log_prob");
  if (!at::isFloatingType(in.log_prob.scalar_type())) {
    throw Error(fn + ": log_prob must be floating point");
  }
  require_same_shape(in.log_prob, "log_prob", in.old_log_prob, "old_log_prob", fn);
  require_same_shape(in.log_prob, "log_prob", in.advantages, "advantages", fn);
  require_same_shape(in.log_prob, "log_prob", in.response_mask, "response_mask", fn);
  if (in.rollout_is_weights.defined()) {
    require_same_shape(in.log_prob, "log_prob", in.rollout_is_weights, "rollout_is_weights", fn);
  }
  const auto dtype = in.log_prob.scalar_type();
  return {in.log_prob, in.old_log_prob.detach().to(dtype), in.advantages.detach().to(dtype),
          mask_like(in.response_mask, in.log_prob)};
}

at::Tensor weighted(const at::Tensor& loss, const PolicyLossInputs& in) {
  return in.rollout_is_weights.defined()
             ? loss * in.rollout_is_weights.detach().to(loss.scalar_type())
             : loss;
}

at::Tensor as_float(const at::Tensor& b, const at::Tensor& like) {
  return b.to(like.scalar_type());
}

at::Tensor clamped_delta(const Prepared& p) {
  return at::clamp(p.log_prob - p.old_log_prob, -20.0, 20.0);
}

PolicyLossResult gspo(const PolicyLossInputs& in, const PolicyLossConfig& c,
                      const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "gspo");
  const at::Tensor delta = p.log_prob - p.old_log_prob;
  const at::Tensor seq = (delta * p.mask).sum(-1) / at::clamp_min(p.mask.sum(-1), 1.0);
  const at::Tensor log_ratio = p.log_prob - p.log_prob.detach() + seq.detach().unsqueeze(-1);
  const at::Tensor ratio = at::clamp_max(log_ratio, 10.0).exp();
  const at::Tensor l1 = -p.advantages * ratio;
  const at::Tensor l2 = -p.advantages * at::clamp(ratio, 1 - c.low(), 1 + c.high());
  const at::Tensor loss = weighted(at::maximum(l1, l2), in);
  return {agg_loss(loss, p.mask, "seq-mean-token-mean", info),
          {{"pg_clipfrac", scalar(masked_mean(as_float(l2 > l1, l1), p.mask))},
           {"ppo_kl", scalar(masked_mean(-delta, p.mask))},
           {"pg_clipfrac_lower", 0.0}}};
}

PolicyLossResult sapo(const PolicyLossInputs& in, const PolicyLossConfig& c,
                      const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "sapo");
  const at::Tensor delta = clamped_delta(p);
  const at::Tensor ratio = delta.exp();
  const at::Tensor tau =
      at::where(p.advantages > 0, at::full_like(ratio, c.tau_pos), at::full_like(ratio, c.tau_neg));
  const at::Tensor gate = at::sigmoid(tau * (ratio - 1)) * 4.0 / tau;
  const at::Tensor loss = weighted(-gate * p.advantages, in);
  return {agg_loss(loss, p.mask, "seq-mean-token-mean", info),
          {{"pg_clipfrac", 0.0},
           {"ppo_kl", scalar(masked_mean(-delta, p.mask))},
           {"pg_clipfrac_lower", 0.0}}};
}

PolicyLossResult gpg(const PolicyLossInputs& in, const PolicyLossConfig& c,
                     const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "gpg");
  return {agg_loss(weighted(-p.log_prob * p.advantages, in), p.mask, c.loss_agg_mode, info), {}};
}

// dppo_tv (binary_kl == false) and dppo_kl (binary_kl == true).
PolicyLossResult dppo(const PolicyLossInputs& in, const PolicyLossConfig& c,
                      const GlobalBatchInfo& info, bool binary_kl) {
  const Prepared p = prepare(in, binary_kl ? "dppo_kl" : "dppo_tv");
  const at::Tensor delta = clamped_delta(p);
  const at::Tensor ratio = delta.exp();
  const at::Tensor weight = at::clamp_max(ratio, c.clip_ratio_c).detach();
  const at::Tensor prob = p.log_prob.detach().exp();
  const at::Tensor old_prob = p.old_log_prob.exp();
  at::Tensor valid_pos;
  at::Tensor valid_neg;
  if (binary_kl) {
    const at::Tensor d = old_prob * (p.old_log_prob - p.log_prob.detach()) +
                         (1 - old_prob) * at::log((1 - old_prob + 1e-8) / (1 - prob + 1e-8));
    valid_pos = (d <= c.high()) | (prob <= old_prob);
    valid_neg = (d <= c.low()) | (prob >= old_prob);
  } else {
    valid_pos = (prob - old_prob) <= c.high();
    valid_neg = (prob - old_prob) >= -c.low();
  }
  const at::Tensor valid = as_float(at::where(p.advantages > 0, valid_pos, valid_neg), ratio);
  const at::Tensor loss = weighted(-p.advantages * weight * p.log_prob * valid, in);
  return {agg_loss(loss, p.mask, c.loss_agg_mode, info),
          {{"pg_clipfrac", scalar(masked_mean(1 - valid, p.mask))},
           {"ppo_kl", scalar(masked_mean(-delta, p.mask))},
           {"pg_clipfrac_lower",
            scalar(masked_mean(as_float(ratio > c.clip_ratio_c, ratio) * valid, p.mask))}}};
}

PolicyLossResult clip_cov(const PolicyLossInputs& in, const PolicyLossConfig& c,
                          const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "clip_cov");
  if (c.clip_cov_ratio <= 0) throw Error("policy_loss.clip_cov_ratio must be > 0");
  const at::Tensor delta = p.log_prob - p.old_log_prob;
  const at::Tensor ratio = delta.exp();
  const at::Tensor l1 = -p.advantages * ratio;
  const at::Tensor l2 = -p.advantages * at::clamp(ratio, 1 - c.low(), 1 + c.high());
  const at::Tensor valid = p.mask > 0;
  const at::Tensor clipped = (l2 > l1) & valid;
  const at::Tensor lp = p.log_prob.detach();
  const at::Tensor cov =
      (p.advantages - masked_mean(p.advantages, p.mask)) * (lp - masked_mean(lp, p.mask));
  const at::Tensor excluded = at::logical_not(valid) | clipped;
  const at::Tensor candidates =
      at::logical_not(excluded) & (cov > c.clip_cov_lb) & (cov < c.clip_cov_ub);
  const int64_t wanted =
      std::max<int64_t>(static_cast<int64_t>(c.clip_cov_ratio * p.mask.sum().item<double>()), 1);
  at::Tensor flat = at::nonzero(candidates.reshape({-1})).reshape({-1});
  const int64_t n = flat.size(0);
  if (n > 0) {
    const auto options = at::TensorOptions().dtype(at::kLong);
    const at::Tensor perm =
        in.generator.defined() ? at::randperm(n, in.generator, options) : at::randperm(n, options);
    flat = flat.index_select(0, perm.narrow(0, 0, std::min(wanted, n)).to(flat.device()));
  }
  const at::Tensor corr =
      at::ones({p.log_prob.numel()}, ratio.options()).index_fill_(0, flat, 0.0).view_as(ratio);
  const at::Tensor loss = weighted(at::maximum(l1, l2) * corr, in);
  return {agg_loss(loss, p.mask, c.loss_agg_mode, info),
          {{"pg_clipfrac", scalar(masked_mean(as_float(corr == 0, corr), p.mask))},
           {"ppo_kl", scalar(masked_mean(-delta, p.mask))}}};
}

PolicyLossResult kl_cov(const PolicyLossInputs& in, const PolicyLossConfig& c,
                        const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "kl_cov");
  const at::Tensor delta = p.log_prob - p.old_log_prob;
  const at::Tensor ratio = delta.exp();
  const at::Tensor base = -p.advantages * ratio;
  const at::Tensor with_kl = base + c.ppo_kl_coef * delta.abs();
  const at::Tensor valid = at::nonzero(p.mask.reshape({-1}) > 0).reshape({-1});
  const int64_t n = valid.size(0);
  at::Tensor loss = base;
  if (n > 0 && c.kl_cov_ratio > 0) {
    const at::Tensor a = p.advantages.reshape({-1}).index_select(0, valid);
    const at::Tensor lp = p.log_prob.detach().reshape({-1}).index_select(0, valid);
    const at::Tensor cov = (a - a.mean()) * (lp - lp.mean());
    const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(n * c.kl_cov_ratio));
    const at::Tensor top = valid.index_select(0, std::get<1>(at::topk(cov, std::min(k, n))));
    const at::Tensor selected = at::zeros({p.log_prob.numel()}, valid.options().dtype(at::kBool))
                                    .index_fill_(0, top, true)
                                    .view_as(base);
    loss = at::where(selected, with_kl, base);
  }
  return {agg_loss(weighted(loss, in), p.mask, c.loss_agg_mode, info),
          {{"ppo_kl", scalar(masked_mean(delta.abs(), p.mask))}}};
}

PolicyLossResult geo_mean(const PolicyLossInputs& in, const PolicyLossConfig& c,
                          const GlobalBatchInfo&) {
  const Prepared p = prepare(in, "geo_mean");
  const at::Tensor delta = p.log_prob - p.old_log_prob;
  const at::Tensor clipped = at::clamp(delta, -c.low(), c.high());
  const at::Tensor sign = at::sign(p.advantages);
  const at::Tensor chosen = sign * at::minimum(sign * delta, sign * clipped);
  const at::Tensor tokens = p.mask.sum(-1) + 1e-8;
  const at::Tensor ratio = ((chosen * p.mask).sum(-1) / tokens).exp();
  const at::Tensor mean_advantage = (p.advantages * p.mask).sum(-1) / tokens;
  at::Tensor per_sequence = -mean_advantage * ratio;
  if (in.rollout_is_weights.defined()) {
    const at::Tensor log_w = in.rollout_is_weights.detach().to(delta.scalar_type()).log();
    per_sequence = per_sequence * (masked_sum(log_w, p.mask, -1) / tokens).exp();
  }
  // verl's clip fractions: tokens whose log-ratio the clamp moved, with A > 0 (upper) and A < 0.
  const at::Tensor moved = delta != clipped;
  return {
      per_sequence.mean(),
      {{"ppo_kl", scalar(masked_mean(-delta, p.mask))},
       {"pg_clipfrac", scalar(masked_mean(as_float(moved & (p.advantages > 0), delta), p.mask))},
       {"pg_clipfrac_lower",
        scalar(masked_mean(as_float(moved & (p.advantages < 0), delta), p.mask))}}};
}

PolicyLossResult dro(const PolicyLossInputs& in, const PolicyLossConfig& c,
                     const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "dro");
  if (!c.dro_beta || *c.dro_beta <= 0) {
    throw Error("policy_loss.loss_mode dro needs policy_loss.dro_beta > 0");
  }
  const at::Tensor delta = p.log_prob - p.old_log_prob;
  const at::Tensor loss = -(p.log_prob * p.advantages - 0.5 * *c.dro_beta * delta.square());
  return {agg_loss(weighted(loss, in), p.mask, c.loss_agg_mode, info),
          {{"ppo_kl", scalar(masked_mean(-delta, p.mask))}}};
}

PolicyLossResult cispo(const PolicyLossInputs& in, const PolicyLossConfig& c,
                       const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "cispo");
  const at::Tensor delta = clamped_delta(p);
  const at::Tensor ratio = delta.exp();
  const at::Tensor clipped = at::clamp(ratio, 1 - c.low(), 1 + c.high());
  const at::Tensor loss = -clipped.detach() * p.advantages * p.log_prob;
  return {agg_loss(weighted(loss, in), p.mask, c.loss_agg_mode, info),
          {{"pg_clipfrac", scalar(masked_mean(as_float(ratio != clipped, ratio), p.mask))},
           {"pg_clipfrac_lower", 0.0},  // verl reports 0: cispo has no lower clip
           {"ppo_kl", scalar(masked_mean(-delta, p.mask))}}};
}

}  // namespace

PolicyLossResult compute_policy_loss_vanilla(const PolicyLossInputs& in, const PolicyLossConfig& c,
                                             const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "vanilla");
  if (!(c.clip_ratio_c > 1.0)) {
    throw Error("actor.clip_ratio_c must be > 1.0 (dual-clip PPO), got " +
                std::to_string(c.clip_ratio_c));
  }
  const at::Tensor delta = clamped_delta(p);
  const at::Tensor ratio = delta.exp();
  const at::Tensor& a = p.advantages;
  const at::Tensor l1 = -a * ratio;
  const at::Tensor l2 = -a * at::clamp(ratio, 1 - c.low(), 1 + c.high());
  const at::Tensor clip1 = at::maximum(l1, l2);
  const at::Tensor l3 = -a * c.clip_ratio_c;
  const at::Tensor clip2 = at::minimum(l3, clip1);
  const at::Tensor loss = weighted(at::where(a < 0, clip2, clip1), in);
  return {
      agg_loss(loss, p.mask, c.loss_agg_mode, info),
      {{"pg_clipfrac", scalar(masked_mean(as_float(l2 > l1, l1), p.mask))},
       {"ppo_kl", scalar(masked_mean(-delta, p.mask))},
       {"pg_clipfrac_lower", scalar(masked_mean(as_float((clip1 > l3) & (a < 0), l1), p.mask))}}};
}

// REINFORCE with optional IS weights: -A*log_prob*w.
PolicyLossResult reinforce(const PolicyLossInputs& in, const PolicyLossConfig& c,
                           const GlobalBatchInfo& info) {
  const Prepared p = prepare(in, "bypass_mode");
  const at::Tensor loss = weighted(-p.advantages * p.log_prob, in);
  return {agg_loss(loss, p.mask, c.loss_agg_mode, info),
          {{"ppo_kl", scalar(masked_mean(p.old_log_prob - p.log_prob, p.mask))}}};
}

PolicyLossResult bypass_mode(const PolicyLossInputs& in, const PolicyLossConfig& c,
                             const GlobalBatchInfo& info) {
  prepare(in, "bypass_mode");
  const RolloutCorrectionResult correction = compute_rollout_correction(
      in.log_prob.detach(), in.old_log_prob, in.response_mask, c.rollout_correction);
  PolicyLossInputs effective = in;
  effective.response_mask = correction.response_mask;
  effective.rollout_is_weights = at::Tensor();
  PolicyLossResult result;
  if (c.rollout_correction.loss_type == "reinforce") {
    effective.rollout_is_weights = correction.rollout_is_weights;
    result = reinforce(effective, c, info);
  } else {
    result = compute_policy_loss_vanilla(effective, c, info);
  }
  result.metrics.insert(correction.metrics.begin(), correction.metrics.end());
  return result;
}

Registry<PolicyLoss>& policy_losses() {
  static Registry<PolicyLoss> registry = [] {
    Registry<PolicyLoss> r("actor_rollout_ref.actor.policy_loss.loss_mode");
    r.add("vanilla", compute_policy_loss_vanilla);
    r.add("gspo", gspo);
    r.add("sapo", sapo);
    r.add("gpg", gpg);
    r.add("dppo_tv", [](const PolicyLossInputs& in, const PolicyLossConfig& c,
                        const GlobalBatchInfo& info) { return dppo(in, c, info, false); });
    r.add("dppo_kl", [](const PolicyLossInputs& in, const PolicyLossConfig& c,
                        const GlobalBatchInfo& info) { return dppo(in, c, info, true); });
    r.add("clip_cov", clip_cov);
    r.add("kl_cov", kl_cov);
    r.add("geo_mean", geo_mean);
    r.add("dro", dro);
    r.add("cispo", cispo);
    r.add("bypass_mode", bypass_mode);
    return r;
  }();
  return registry;
}

PolicyLossResult compute_policy_loss(const std::string& loss_mode, const PolicyLossInputs& in,
                                     const PolicyLossConfig& config, const GlobalBatchInfo& info) {
  return policy_losses().get(loss_mode)(in, config, info);
}

}  // namespace verlpp::algo
