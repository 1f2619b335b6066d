// The AdamW optimizer settings of a verl `optim` section (actor, critic and SFT alike): lr, weight
// decay, betas, clip_grad and the learning-rate schedule keys (verl.md §1.5).
#pragma once

#include <string>

#include "verlpp/config/sections.h"
#include "verlpp/engine/optimizer.h"

namespace verlpp::trainer {

// optim.{lr, weight_decay, betas, clip_grad, lr_warmup_steps(_ratio), lr_scheduler_type (or the
// deprecated warmup_style), min_lr_ratio, num_cycles, zero_indexed_step}; empty betas keep AdamW's
// (0.9, 0.999). Throws verlpp::Error naming `key`.betas when betas is not a pair.
engine::AdamWConfig adamw_config(const config::OptimConfig& optim, const std::string& key);

}  // namespace verlpp::trainer
