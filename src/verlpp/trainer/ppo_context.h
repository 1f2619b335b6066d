// Everything a PPO run holds between steps, built from a valid configuration: tokenizer, train and
// validation datasets, the stateful dataloader, the actor (whose weights the rollout samples from),
// the frozen reference policy, the critic, the distillation teachers, the KL controller, the
// reward settings and the sampling parameters (verl's RayPPOTrainer.__init__ and init_workers,
// verl.md §7.1-7.3).
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "verlpp/algo/kl_controller.h"
#include "verlpp/config/check.h"
#include "verlpp/data/dataloader.h"
#include "verlpp/data/rl_dataset.h"
#include "verlpp/engine/actor.h"
#include "verlpp/engine/critic.h"
#include "verlpp/engine/scorer.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/reward/reward_settings.h"
#include "verlpp/rollout/rollout.h"
#include "verlpp/tokenizer/tokenizer.h"
#include "verlpp/trainer/checkpoint_dir.h"
#include "verlpp/trainer/flops.h"
#include "verlpp/trainer/placement.h"
#include "verlpp/trainer/teachers.h"

namespace verlpp::trainer {

struct PpoContext {
  config::Config config;
  at::Device device = at::Device(at::kCPU);
  dist::Communicator world;  // the data-parallel ranks of the run
  std::string tokenizer_dir;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::unique_ptr<data::RLHFDataset> train_data;
  std::unique_ptr<data::RLHFDataset> val_data;  // null without data.val_files
  std::unique_ptr<data::StatefulDataLoader> loader;
  std::int64_t total_steps = 0;  // trainer.total_training_steps: the LR schedules' horizon
  // The run's last step: total_steps, or sooner when trainer.total_epochs end first (verl's loop
  // runs over the epochs and returns at total_training_steps).
  std::int64_t last_step = 0;
  std::unique_ptr<engine::Actor> actor;
  std::unique_ptr<engine::Scorer> ref;     // when need_reference_policy
  std::unique_ptr<engine::Critic> critic;  // when need_critic
  std::unique_ptr<Teachers> teachers;      // when distillation.enabled
  std::unique_ptr<algo::KLController> kl_ctrl;
  reward::RewardSettings reward;
  rollout::SamplingParams train_sampling, val_sampling;
  DecoderShape shape;              // of the actor, for MFU
  std::string device_name;         // "NVIDIA H200", or "" on the CPU
  CheckpointRotation checkpoints;  // this run's saves (trainer.max_actor_ckpt_to_keep)
};

// Loads the tokenizer (model.tokenizer_path, else model.path), the datasets, the models in the
// compute dtype on the placement's device, and builds the optimizers with total_training_steps
// over the placement's data-parallel ranks. Throws
// verlpp::Error for unreadable data or models, a dataset smaller than one batch (naming both
// numbers), or a configuration the trainer cannot run (naming the key).
PpoContext make_ppo_context(const config::CheckReport& report, const RunPlacement& placement);

}  // namespace verlpp::trainer
