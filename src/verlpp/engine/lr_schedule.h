// Learning-rate schedules of verl's FSDP engine (verl/utils/torch_functional.py, engine
// _build_lr_scheduler; verl.md §3.5), keyed by actor_rollout_ref.actor.optim.*:
//
//   warmup W = lr_warmup_steps if > 0, else int(lr_warmup_steps_ratio × total_training_steps)
//   constant  f(t) = t / max(1, W) for t < W, else 1
//   cosine    t' = t (zero_indexed_step) or t + 1;  t' < W: f = t' / max(1, W)
//             else p = (t' − W) / max(1, T − W),
//                  f = max(min_lr_ratio, cos(π·num_cycles·2·p)·(1 − min_lr_ratio)/2 + (1 +
//                  min_lr_ratio)/2)
//
// lr(t) = optim.lr × f(t), where t counts scheduler steps taken so far (one per training step).
#pragma once

#include <cstdint>
#include <string>

namespace verlpp::engine {

struct LrScheduleConfig {
  double lr = 1e-6;
  std::string lr_scheduler_type = "constant";  // constant | cosine
  std::int64_t lr_warmup_steps = -1;
  double lr_warmup_steps_ratio = 0.0;
  double min_lr_ratio = 0.0;
  double num_cycles = 0.5;
  bool zero_indexed_step = true;
};

class LrSchedule {
 public:
  // Throws verlpp::Error naming optim.lr_scheduler_type for a type other than constant/cosine.
  LrSchedule(const LrScheduleConfig& config, std::int64_t total_training_steps);

  // The learning rate after `step` scheduler steps (step 0 = the first update).
  double lr_at(std::int64_t step) const;
  std::int64_t warmup_steps() const { return warmup_steps_; }

 private:
  LrScheduleConfig config_;
  std::int64_t total_training_steps_, warmup_steps_;
};

}  // namespace verlpp::engine
