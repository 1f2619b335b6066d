// One training step of verl's legacy RayPPOTrainer.fit (verl.md §7.3): uids per prompt, rollout.n
// responses per prompt, trainer.balance_batch, rewards, old log-probs (with entropy), reference
// log-probs, values, advantages (KL in the reward when configured), critic update, actor update
// (after critic_warmup).
//
// Over several data-parallel ranks (ctx.world; distributed.md §1): generation, log-probs, values
// and the updates run on each rank's contiguous slice (trainer/data_parallel.h), rewards and
// advantages on the whole batch on every rank; every rank returns the same metrics.
#pragma once

#include <cstdint>
#include <vector>

#include "verlpp/trainer/phase_timer.h"
#include "verlpp/trainer/ppo_context.h"
#include "verlpp/trainer/step_metrics.h"
#include "verlpp/trainer/tracking.h"

namespace verlpp::trainer {

struct StepOutput {
  Metrics metrics;  // actor/*, critic/* (updates), actor/entropy, perf/mfu/actor, KL-in-reward
  StepBatch batch;  // for compute_data_metrics and the timing/throughput metrics (CPU tensors)
};

// The rollout seed of a step: a function of rollout.seed and the step only, so that a resumed run
// samples what an uninterrupted one does.
std::uint64_t rollout_seed(std::int64_t rollout_seed_key, std::int64_t global_step);

// Runs the step on dataset rows `rows`, timing each phase in `timer`.
StepOutput train_step(PpoContext& ctx, std::int64_t global_step,
                      const std::vector<std::int64_t>& rows, PhaseTimer& timer);

}  // namespace verlpp::trainer
