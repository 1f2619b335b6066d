// The actor/critic optimizer step of verl's FSDP engine (verl.md §3.5): AdamW (torch.optim.AdamW:
// decoupled weight decay on every parameter, eps 1e-8) on fp32 master weights, while the model
// computes with its own (e.g. bf16) parameters, as FSDP mixed precision keeps fp32 parameters and
// casts them for compute.
//
// step(): gradients of the model parameters are copied into fp32, their global L2 norm is taken
// (the metric grad_norm, before clipping) and clipped to clip_grad; a non-finite norm skips the
// update (verl zeroes the gradients and does not step); otherwise AdamW updates the masters and
// the model parameters are overwritten with the masters cast to their dtype. On CUDA with
// LibTorch >= 2.1 the update is one fused kernel (torch.optim.AdamW(fused=True)); elsewhere
// _foreach kernels with the same formula. The learning rate
// follows LrSchedule, advanced once per training step by advance_lr().
//
// Data parallel: with a communicator of several ranks, step() first sums the gradients over the
// ranks (one fp32 all-reduce of all gradients). Each rank's loss is normalised by the global
// batch's counts (distributed.md §1.6), so the sum is the one-rank gradient of the whole batch and
// every rank applies the same update to identical parameters.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "verlpp/dist/communicator.h"
#include "verlpp/engine/lr_schedule.h"

namespace verlpp::engine {

struct AdamWConfig {
  LrScheduleConfig schedule;
  double weight_decay = 0.01;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double clip_grad = 1.0;
};

struct StepResult {
  double grad_norm = 0;  // before clipping
  bool applied = false;  // false when the norm was not finite
};

class Optimizer {
 public:
  // `parameters`: the model's tensors (any floating dtype, requires_grad). Throws verlpp::Error
  // when betas are outside [0, 1), lr is negative or there are no parameters.
  Optimizer(std::vector<at::Tensor> parameters, const AdamWConfig& config,
            std::int64_t total_training_steps, dist::Communicator dp = {});
  ~Optimizer();

  StepResult step();
  void zero_grad();
  void advance_lr();
  double lr() const;

  // Optimizer state to and from one safetensors file (fp32 "master.i", "exp_avg.i",
  // "exp_avg_sq.i" per parameter i; metadata verlpp_format, adam_step, scheduler_step); writing
  // goes through a temporary name. load() also sets the model parameters from the masters. It
  // throws verlpp::Error naming the file when it is missing, unreadable, of another format, or
  // holds other parameter counts or shapes than the model's.
  void save(const std::string& path) const;
  void load(const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace verlpp::engine
