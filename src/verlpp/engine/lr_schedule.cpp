#include "verlpp/engine/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "verlpp/core/error.h"

namespace verlpp::engine {

LrSchedule::LrSchedule(const LrScheduleConfig& config, std::int64_t total_training_steps)
    : config_(config), total_training_steps_(total_training_steps) {
  if (config.lr_scheduler_type != "constant" && config.lr_scheduler_type != "cosine") {
    throw Error("optim.lr_scheduler_type: expected constant or cosine, got '" +
                config.lr_scheduler_type + "'");
  }
  warmup_steps_ = config.lr_warmup_steps > 0
                      ? config.lr_warmup_steps
                      : static_cast<std::int64_t>(config.lr_warmup_steps_ratio *
                                                  static_cast<double>(total_training_steps));
}

double LrSchedule::lr_at(std::int64_t step) const {
  const double warmup = static_cast<double>(std::max<std::int64_t>(1, warmup_steps_));
  if (config_.lr_scheduler_type == "constant") {
    return config_.lr * (step < warmup_steps_ ? static_cast<double>(step) / warmup : 1.0);
  }
  const std::int64_t t = config_.zero_indexed_step ? step : step + 1;
  if (t < warmup_steps_) return config_.lr * static_cast<double>(t) / warmup;
  const double progress =
      static_cast<double>(t - warmup_steps_) /
      static_cast<double>(std::max<std::int64_t>(1, total_training_steps_ - warmup_steps_));
  const double min_ratio = config_.min_lr_ratio;
  const double cosine =
      std::cos(std::numbers::pi * config_.num_cycles * 2.0 * progress) * (1.0 - min_ratio) / 2.0 +
      (1.0 + min_ratio) / 2.0;
  return config_.lr * std::max(min_ratio, cosine);
}

}  // namespace verlpp::engine
