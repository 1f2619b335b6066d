// The engine and algorithm settings of a PPO run, read from the typed configuration (verl's keys;
// verl.md §1.5-1.9, §3.5).
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstdint>

#include "verlpp/algo/advantage.h"
#include "verlpp/algo/kl_controller.h"
#include "verlpp/config/sections.h"
#include "verlpp/engine/actor.h"
#include "verlpp/engine/critic.h"
#include "verlpp/engine/optimizer.h"
#include "verlpp/trainer/adamw_settings.h"

namespace verlpp::trainer {

// actor.*, rollout.{temperature, n, log_prob_*} and model.use_remove_padding.
engine::ActorSettings actor_settings(const config::Config& config);

// distillation.distillation_loss.* (checked by algo::validate_distillation_loss_config).
algo::DistillationLossConfig distillation_loss_config(const config::DistillationConfig& d);

// ref.log_prob_* micro-batching (else the rollout's), same forward settings as the actor.
engine::MicroBatching ref_micro_batching(const config::Config& config);

// critic.* (mini-batch rows = critic.ppo_mini_batch_size × rollout.n).
engine::CriticSettings critic_settings(const config::Config& config);

algo::AdvantageConfig advantage_config(const config::Config& config);
algo::KLControlConfig kl_control_config(const config::Config& config);

// trainer.total_training_steps when set, else batches per epoch × total_epochs.
std::int64_t total_training_steps(const config::Config& config, std::int64_t batches_per_epoch);

// The dtype the models compute in: on CUDA actor.fsdp_config.dtype (verl's default bfloat16; the
// optimizer keeps fp32 masters either way); fp32 on the CPU, with a note when the key asks for
// another dtype (core/dtype.h's trainer_compute_dtype).
at::ScalarType compute_dtype(const config::Config& config, const at::Device& device);

}  // namespace verlpp::trainer
