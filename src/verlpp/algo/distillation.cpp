#include "verlpp/algo/distillation.h"

#include <ATen/ATen.h>

#include <limits>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/kl_penalty.h"
#include "verlpp/algo/masked.h"
#include "verlpp/algo/policy_loss.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

const char* kTopk = "forward_kl_topk";

// min and max of x over the unmasked entries; +inf and -inf when there are none, so that a
// micro-batch without response tokens leaves the extremes over the step unchanged
// (algo::Aggregation; the step's report turns an extreme over no tokens into 0).
std::pair<double, double> masked_extrema(const at::Tensor& x, const at::Tensor& mask) {
  const at::Tensor selected = x.detach().masked_select(mask_like(mask, x) > 0);
  if (selected.numel() == 0) {
    return {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  }
  return {selected.min().item<double>(), selected.max().item<double>()};
}

void add_mass_metrics(Metrics& metrics, const std::string& name, const at::Tensor& mass,
                      const at::Tensor& mask) {
  const auto [lo, hi] = masked_extrema(mass, mask);
  metrics["distillation/" + name] = masked_mean(mass, mask).item<double>();
  metrics["distillation/" + name + "_min"] = lo;
  metrics["distillation/" + name + "_max"] = hi;
}

}  // namespace

bool distillation_uses_topk(const std::string& loss_mode) {
  if (loss_mode == kTopk) return true;
  std::string valid;
  for (const auto& n : kl_penalty_names()) valid += n + ", ";
  try {
    validate_kl_penalty_name(loss_mode, "distillation.distillation_loss.loss_mode");
  } catch (const Error&) {
    throw Error("unknown distillation.distillation_loss.loss_mode '" + loss_mode +
                "'; valid: " + valid + std::string(kTopk) + " (estimators also with a '+' suffix)");
  }
  return false;
}

void validate_distillation_loss_config(const DistillationLossConfig& config) {
  distillation_uses_topk(config.loss_mode);
  if (config.policy_loss_mode != "vanilla") {
    throw Error("distillation.distillation_loss.policy_loss_mode must be vanilla, got '" +
                config.policy_loss_mode + "'");
  }
  const std::string base = config.loss_mode.substr(0, config.loss_mode.find('+'));
  if (!config.use_policy_gradient && (base == "k1" || base == "kl")) {
    throw Error("distillation.distillation_loss.loss_mode=" + config.loss_mode +
                " needs use_policy_gradient=true: the k1 gradient does not depend on the teacher");
  }
  if (config.loss_max_clamp && !(*config.loss_max_clamp > 0)) {
    throw Error("distillation.distillation_loss.loss_max_clamp must be > 0");
  }
}

TopkDivergence forward_kl_topk(const at::Tensor& student_logits, const at::Tensor& teacher_ids,
                               const at::Tensor& teacher_logprobs, const at::Tensor& response_mask,
                               double temperature, std::optional<double> log_prob_min_clamp) {
  const std::string fn = "distillation forward_kl_topk";
  require_dim(student_logits, 3, fn, "student_logits");
  require_dim(teacher_ids, 3, fn, "teacher_ids");
  if (teacher_ids.scalar_type() != at::kLong) throw Error(fn + ": teacher_ids must be int64");
  if (student_logits.size(0) != teacher_ids.size(0) ||
      student_logits.size(1) != teacher_ids.size(1)) {
    throw Error(fn + ": student_logits " + shape_string(student_logits) + " and teacher_ids " +
                shape_string(teacher_ids) + " must agree in [batch, response_length]");
  }
  if (!(temperature > 0)) throw Error(fn + ": temperature must be > 0");
  const int64_t k = teacher_ids.size(-1);
  if (k < 1 || k > student_logits.size(-1)) {
    throw Error(fn + ": the teacher's top-k (" + std::to_string(k) +
                ") must be between 1 and the vocabulary size");
  }
  const auto dtype = student_logits.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  const at::Tensor log_q_all = at::log_softmax(student_logits.to(dtype) / temperature, -1);
  const at::Tensor student_top = std::get<1>(at::topk(student_logits.detach(), k, -1));
  return forward_kl_topk_at_ids(at::gather(log_q_all, -1, teacher_ids), student_top, teacher_ids,
                                teacher_logprobs, response_mask, log_prob_min_clamp);
}

TopkDivergence forward_kl_topk_at_ids(const at::Tensor& student_log_q,
                                      const at::Tensor& student_top_ids,
                                      const at::Tensor& teacher_ids,
                                      const at::Tensor& teacher_logprobs,
                                      const at::Tensor& response_mask,
                                      std::optional<double> log_prob_min_clamp) {
  const std::string fn = "distillation forward_kl_topk";
  require_dim(teacher_ids, 3, fn, "teacher_ids");
  require_same_shape(teacher_ids, "teacher_ids", teacher_logprobs, "teacher_logprobs", fn);
  require_same_shape(teacher_ids, "teacher_ids", student_log_q, "student_log_q", fn);
  require_same_shape(teacher_ids, "teacher_ids", student_top_ids, "student_top_ids", fn);
  require_same_shape(teacher_ids.select(-1, 0), "teacher_ids[..., 0]", response_mask,
                     "response_mask", fn);
  const auto dtype = student_log_q.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  at::Tensor log_q = student_log_q.to(dtype);
  at::Tensor log_p = teacher_logprobs.detach().to(dtype);
  const at::Tensor student_mass = log_q.detach().exp().sum(-1);
  const at::Tensor teacher_mass = log_p.exp().sum(-1);
  if (log_prob_min_clamp) {
    log_q = at::clamp_min(log_q, *log_prob_min_clamp);
    log_p = at::clamp_min(log_p, *log_prob_min_clamp);
  }
  const at::Tensor token_kl = log_p.exp() * (log_p - log_q);
  const at::Tensor divergence = at::clamp_min(token_kl.sum(-1), 0.0);

  // |teacher top-k ∩ student top-k| / k by a sorted search (O(k) memory per token; an all-pairs
  // comparison would need k² and k may be the whole vocabulary). Top-k ids are distinct.
  const int64_t k = teacher_ids.size(-1);
  const at::Tensor sorted = std::get<0>(at::sort(student_top_ids.to(teacher_ids.device()), -1));
  const at::Tensor at_or_after =
      at::searchsorted(sorted, teacher_ids.contiguous()).clamp_max(k - 1);
  const at::Tensor shared = sorted.gather(-1, at_or_after) == teacher_ids;
  const at::Tensor shared_count = shared.to(dtype).sum(-1);
  const at::Tensor overlap = shared_count / static_cast<double>(k);
  // verl's overlap_token_advantage (arXiv 2604.13016): the mean of -p·(log p - log q) over the
  // teacher's top-k ids that are also in the student's top-k; 0 where none is.
  const at::Tensor overlap_advantage =
      (-token_kl.detach() * shared.to(dtype)).sum(-1) / shared_count.clamp_min(1.0);

  TopkDivergence result{divergence, {}};
  add_mass_metrics(result.metrics, "student_mass", student_mass, response_mask);
  add_mass_metrics(result.metrics, "teacher_mass", teacher_mass, response_mask);
  result.metrics["distillation/overlap_ratio"] = masked_mean(overlap, response_mask).item<double>();
  result.metrics["distillation/overlap_token_advantage"] =
      masked_mean(overlap_advantage, response_mask).item<double>();
  return result;
}

DistillationLossResult distillation_loss(const at::Tensor& divergence,
                                         const at::Tensor& response_mask,
                                         const DistillationLossConfig& config,
                                         const std::string& loss_agg_mode,
                                         const GlobalBatchInfo& info, const at::Tensor& log_prob,
                                         const at::Tensor& old_log_prob) {
  const std::string fn = "distillation loss";
  require_dim(divergence, 2, fn, "divergence");
  require_same_shape(divergence, "divergence", response_mask, "response_mask", fn);
  DistillationLossResult result;
  const auto [lo, hi] = masked_extrema(divergence, response_mask);
  result.metrics["distillation/loss_min"] = lo;
  result.metrics["distillation/loss_max"] = hi;
  result.metrics["distillation/abs_loss"] =
      masked_mean(divergence.detach().abs(), response_mask).item<double>();
  at::Tensor d = divergence;
  if (config.loss_max_clamp) {
    if (!(*config.loss_max_clamp > 0)) {
      throw Error("distillation.distillation_loss.loss_max_clamp must be > 0");
    }
    d = at::clamp(d, -*config.loss_max_clamp, *config.loss_max_clamp);
  }
  if (config.use_policy_gradient) {
    if (!log_prob.defined() || !old_log_prob.defined()) {
      throw Error(fn + ": use_policy_gradient needs the student's log_prob and old_log_prob");
    }
    PolicyLossConfig pc;
    pc.clip_ratio = config.clip_ratio;
    pc.clip_ratio_low = config.clip_ratio_low;
    pc.clip_ratio_high = config.clip_ratio_high;
    pc.clip_ratio_c = config.clip_ratio_c;
    pc.loss_agg_mode = loss_agg_mode;
    PolicyLossInputs in;
    in.old_log_prob = old_log_prob;
    in.log_prob = log_prob;
    in.advantages = -d.detach();
    in.response_mask = response_mask;
    PolicyLossResult pg = compute_policy_loss_vanilla(in, pc, info);
    result.loss = pg.loss;
    for (const auto& [name, value] : pg.metrics) result.metrics["distillation/" + name] = value;
  } else {
    result.loss = agg_loss(d, response_mask, loss_agg_mode, info);
  }
  result.metrics["distillation/loss"] = result.loss.detach().item<double>();
  return result;
}

DistillationLossResult distillation_loss_from_log_probs(
    const at::Tensor& log_prob, const at::Tensor& teacher_log_prob, const at::Tensor& response_mask,
    const DistillationLossConfig& config, const std::string& loss_agg_mode,
    const GlobalBatchInfo& info, const at::Tensor& old_log_prob) {
  if (distillation_uses_topk(config.loss_mode)) {
    throw Error(
        "distillation loss_mode forward_kl_topk needs the student logits and the "
        "teacher's top-k (forward_kl_topk), not per-token log-probs");
  }
  const at::Tensor d = kl_penalty(log_prob, teacher_log_prob.detach(), config.loss_mode);
  return distillation_loss(d, response_mask, config, loss_agg_mode, info, log_prob, old_log_prob);
}

PolicyLossResult distillation_ppo_loss(const ActorLossInputs& in, const at::Tensor& divergence,
                                       const ActorLossConfig& actor,
                                       const DistillationLossConfig& config,
                                       const GlobalBatchInfo& info) {
  const DistillationLossResult distill =
      distillation_loss(divergence, in.policy.response_mask, config, actor.policy.loss_agg_mode,
                        info, in.policy.log_prob, in.policy.old_log_prob);
  PolicyLossResult out;
  out.metrics = distill.metrics;
  out.loss = distill.loss;
  if (config.use_task_rewards || config.use_policy_gradient) {
    const PolicyLossResult ppo = ppo_loss(in, actor, info);
    out.metrics.insert(ppo.metrics.begin(), ppo.metrics.end());
    if (config.use_task_rewards) out.loss = ppo.loss + config.distillation_loss_coef * distill.loss;
  }
  out.metrics["loss"] = out.loss.detach().item<double>();
  return out;
}

}  // namespace verlpp::algo
