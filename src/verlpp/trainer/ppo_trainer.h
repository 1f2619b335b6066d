// `verlpp ppo`: verl's PPO/GRPO training loop (verl.md §7.2-7.4): rollout from the actor's
// weights, old/ref log-probs, rewards, advantages, critic and actor updates, validation,
// checkpoints, metrics. One process, or trainer.nnodes × trainer.n_gpus_per_node data-parallel
// ranks started by `verlpp launch`, torchrun or srun (trainer/placement.h): rank 0 prints, logs
// and writes checkpoints, every rank resumes from them, and a stop signal to any rank stops all
// of them after the same step.
#pragma once

#include <cstdint>
#include <optional>

#include "verlpp/config/check.h"
#include "verlpp/trainer/tracking.h"

namespace verlpp::trainer {

struct PpoRunSummary {
  std::int64_t last_step = 0;  // global step reached (the resumed one when no step ran)
  std::optional<Metrics> first_validation;  // val-core/val-aux metrics of the first validation
  std::optional<Metrics> last_validation;   // ... and of the last one
  int stop_signal = 0;  // the SIGINT/SIGTERM that stopped the run after saving; 0 when none
};

// Runs training for a valid configuration (report.valid()). Throws verlpp::Error for bad input
// (data, checkpoint, model) with the key, file or line and what was expected.
PpoRunSummary run_ppo(const config::CheckReport& report);

}  // namespace verlpp::trainer
