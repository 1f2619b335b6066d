#include "verlpp/trainer/adamw_settings.h"

#include "verlpp/core/error.h"

namespace verlpp::trainer {

engine::AdamWConfig adamw_config(const config::OptimConfig& optim, const std::string& key) {
  engine::AdamWConfig out;
  out.schedule.lr = optim.lr;
  out.schedule.lr_scheduler_type = optim.warmup_style.value_or(
      optim.lr_scheduler_type.empty() ? "constant" : optim.lr_scheduler_type);
  out.schedule.lr_warmup_steps = optim.lr_warmup_steps;
  out.schedule.lr_warmup_steps_ratio = optim.lr_warmup_steps_ratio;
  out.schedule.min_lr_ratio = optim.min_lr_ratio;
  out.schedule.num_cycles = optim.num_cycles;
  out.schedule.zero_indexed_step = optim.zero_indexed_step;
  out.weight_decay = optim.weight_decay;
  out.clip_grad = optim.clip_grad;
  if (!optim.betas.empty()) {
    if (optim.betas.size() != 2) throw Error(key + ".betas: expected two numbers");
    out.beta1 = optim.betas[0];
    out.beta2 = optim.betas[1];
  }
  return out;
}

}  // namespace verlpp::trainer
