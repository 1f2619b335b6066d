#include "verlpp/trainer/ppo_settings.h"

#include <algorithm>

#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/sampling.h"

namespace verlpp::trainer {
namespace {

engine::MicroBatching micro(bool dynamic, std::optional<std::int64_t> max_tokens,
                            std::optional<std::int64_t> per_gpu,
                            std::optional<std::int64_t> global) {
  engine::MicroBatching out;
  if (dynamic) {
    out.max_tokens = max_tokens;
  } else {
    out.rows = per_gpu ? per_gpu : global;
  }
  return out;
}

}  // namespace

engine::ActorSettings actor_settings(const config::Config& config) {
  const config::ActorConfig& a = config.actor;
  const config::RolloutConfig& r = config.rollout;
  engine::ActorSettings s;
  s.forward.remove_padding = config.model.use_remove_padding;
  // verl's engine clamps the temperature of every forward (old log-prob, ref, update) at 1e-8: at
  // temperature 0 (a greedy rollout) log-probs and entropy are nearly one-hot.
  s.forward.temperature = std::max(r.sampling.temperature, rollout::kMinLogProbTemperature);
  s.log_prob_micro = micro(r.log_prob_use_dynamic_bsz, r.log_prob_max_token_len_per_gpu,
                           r.log_prob_micro_batch_size_per_gpu, r.log_prob_micro_batch_size);
  s.update_micro = micro(a.use_dynamic_bsz, a.ppo_max_token_len_per_gpu,
                         a.ppo_micro_batch_size_per_gpu, a.ppo_micro_batch_size);
  s.mini_batch_rows = a.ppo_mini_batch_size * r.n;
  s.ppo_epochs = a.ppo_epochs;
  s.shuffle = a.shuffle;
  s.data_loader_seed = a.data_loader_seed;
  s.calculate_entropy = a.calculate_entropy;
  s.forward.sum_pi_squared = a.calculate_sum_pi_squared;
  s.loss_scale_factor = a.loss_scale_factor;
  if (a.engine.megatron && a.engine.megatron->moe_router_load_balancing_type == "aux_loss") {
    s.add_moe_aux_loss = true;
    s.moe_aux_loss_coeff = a.engine.megatron->moe_aux_loss_coeff;
  }
  s.loss.loss_mode = a.policy_loss.loss_mode;
  s.loss.policy.clip_ratio = a.clip_ratio;
  s.loss.policy.clip_ratio_low = a.clip_ratio_low;
  s.loss.policy.clip_ratio_high = a.clip_ratio_high;
  s.loss.policy.clip_ratio_c = a.clip_ratio_c;
  s.loss.policy.clip_cov_ratio = a.policy_loss.clip_cov_ratio;
  s.loss.policy.kl_cov_ratio = a.policy_loss.kl_cov_ratio;
  s.loss.policy.clip_cov_lb = a.policy_loss.clip_cov_lb;
  s.loss.policy.clip_cov_ub = a.policy_loss.clip_cov_ub;
  s.loss.policy.ppo_kl_coef = a.policy_loss.ppo_kl_coef;
  s.loss.policy.tau_pos = a.tau_pos;
  s.loss.policy.tau_neg = a.tau_neg;
  s.loss.policy.dro_beta = a.policy_loss.dro_beta;
  s.loss.policy.loss_agg_mode = a.loss_agg_mode;
  s.loss.entropy_coeff = a.entropy_coeff;
  s.loss.use_kl_loss = a.use_kl_loss;
  s.loss.kl_loss_coef = a.kl_loss_coef;
  s.loss.kl_loss_type = a.kl_loss_type;
  // verl's apply_bypass_mode: the policy loss becomes bypass_mode, carrying the correction.
  s.loss.policy.rollout_correction = config.algorithm.rollout_correction;
  if (config.algorithm.rollout_correction.bypass_mode) s.loss.loss_mode = "bypass_mode";
  if (config.distillation.enabled) s.distillation = distillation_loss_config(config.distillation);
  return s;
}

algo::DistillationLossConfig distillation_loss_config(const config::DistillationConfig& d) {
  const config::DistillationLossConfig& c = d.distillation_loss;
  algo::DistillationLossConfig out;
  out.loss_mode = c.loss_mode;
  out.topk = c.topk;
  out.use_task_rewards = c.use_task_rewards;
  out.use_policy_gradient = c.use_policy_gradient;
  out.policy_loss_mode = c.policy_loss_mode;
  out.distillation_loss_coef = c.distillation_loss_coef;  // used only with use_task_rewards
  out.loss_max_clamp = c.loss_max_clamp;
  out.log_prob_min_clamp = c.log_prob_min_clamp;
  out.clip_ratio = c.clip_ratio;
  out.clip_ratio_low = c.clip_ratio_low;
  out.clip_ratio_high = c.clip_ratio_high;
  algo::validate_distillation_loss_config(out);
  if (algo::distillation_uses_topk(out.loss_mode) && out.use_policy_gradient) {
    log_warning(
        "distillation: forward_kl_topk with use_policy_gradient=True trains on A = -D through the "
        "PPO clip, which does not use the teacher's top-k distribution beyond D (verl warns too)");
  }
  return out;
}

engine::MicroBatching ref_micro_batching(const config::Config& config) {
  const config::RefConfig& ref = config.ref;
  if (ref.log_prob_use_dynamic_bsz || ref.log_prob_micro_batch_size_per_gpu ||
      ref.log_prob_micro_batch_size) {
    return micro(ref.log_prob_use_dynamic_bsz, ref.log_prob_max_token_len_per_gpu,
                 ref.log_prob_micro_batch_size_per_gpu, ref.log_prob_micro_batch_size);
  }
  return actor_settings(config).log_prob_micro;
}

engine::CriticSettings critic_settings(const config::Config& config) {
  const config::CriticConfig& c = config.critic;
  engine::CriticSettings s;
  s.remove_padding = c.model.use_remove_padding;
  s.forward_micro = micro(c.use_dynamic_bsz, c.ppo_max_token_len_per_gpu,
                          c.forward_micro_batch_size_per_gpu, c.ppo_micro_batch_size_per_gpu);
  s.update_micro = micro(c.use_dynamic_bsz, c.ppo_max_token_len_per_gpu,
                         c.ppo_micro_batch_size_per_gpu, c.ppo_micro_batch_size);
  s.mini_batch_rows = c.ppo_mini_batch_size * config.rollout.n;
  s.ppo_epochs = c.ppo_epochs;
  s.cliprange_value = c.cliprange_value;
  s.loss_agg_mode = c.loss_agg_mode;
  s.loss_scale_factor = c.loss_scale_factor;
  return s;
}

algo::AdvantageConfig advantage_config(const config::Config& config) {
  algo::AdvantageConfig out;
  out.gamma = config.algorithm.gamma;
  out.lam = config.algorithm.lam;
  out.norm_adv_by_std_in_grpo = config.algorithm.norm_adv_by_std_in_grpo;
  out.gdpo_reward_keys = config.algorithm.gdpo_reward_keys;
  out.gdpo_reward_weights = config.algorithm.gdpo_reward_weights;
  return out;
}

algo::KLControlConfig kl_control_config(const config::Config& config) {
  algo::KLControlConfig out;
  out.type = config.algorithm.kl_ctrl.type;
  out.kl_coef = config.algorithm.kl_ctrl.kl_coef;
  out.horizon = static_cast<double>(config.algorithm.kl_ctrl.horizon);
  out.target_kl = config.algorithm.kl_ctrl.target_kl;
  return out;
}

std::int64_t total_training_steps(const config::Config& config, std::int64_t batches_per_epoch) {
  if (config.trainer.total_training_steps) return *config.trainer.total_training_steps;
  return batches_per_epoch * config.trainer.total_epochs;
}

at::ScalarType compute_dtype(const config::Config& config, const at::Device& device) {
  const auto& fsdp = config.actor.engine.fsdp;
  const auto& megatron = config.actor.engine.megatron;
  if (megatron) {
    return trainer_compute_dtype(megatron->dtype.empty() ? "bfloat16" : megatron->dtype,
                                 "actor_rollout_ref.actor.megatron.dtype", device.is_cuda());
  }
  const std::string name = fsdp && !fsdp->dtype.empty() ? fsdp->dtype : "bfloat16";
  return trainer_compute_dtype(name, "actor_rollout_ref.actor.fsdp_config.dtype", device.is_cuda());
}

}  // namespace verlpp::trainer
