// The actor/critic optimizer step of verl's FSDP engine (verl.md §3.5): AdamW (torch.optim.AdamW:
// decoupled weight decay on every parameter, eps 1e-8) on fp32 master weights, while the model
// computes with its own (e.g. bf16) parameters, as FSDP mixed precision keeps fp32 parameters and
// casts them for compute.
//
// step(): gradients of the model parameters are copied into fp32, their global L2 norm is taken
// (the metric grad_norm, before clipping) and clipped to clip_grad; a non-finite norm skips the
// update (verl zeroes the gradients and does not step); otherwise AdamW updates the masters of
// the parameters that got a gradient (on any rank) and the model parameters are overwritten with
// the masters cast to their dtype. A parameter without a gradient (a vision tower on text-only
// data, an expert no token chose) is left as it is, as torch.optim skips parameters whose grad is
// None: no weight decay, no moment update, and its own AdamW step count t does not advance. On CUDA
// with LibTorch >= 2.1 the update is one fused kernel (torch.optim.AdamW(fused=True)); elsewhere
// _foreach kernels with the same formula. The learning rate
// follows LrSchedule, advanced once per training step by advance_lr().
//
// Data parallel, replicated (fsdp_size 1): with a communicator of several ranks, step() first sums
// the gradients over the ranks (one fp32 all-reduce of all gradients). Each rank's loss is
// normalised by the global batch's counts (distributed.md §1.6), so the sum is the one-rank
// gradient of the whole batch and every rank applies the same update to identical parameters.
//
// Sharded (engine/fsdp/sharded_model.h): the optimizer steps this rank's shards. Its masters and
// moments hold only those rows, the gradients are the shard's fp32 gradients already summed over
// the ranks by reduce-scatter, grad_norm is the global norm (squared shard norms summed over the
// ranks), and the updated masters are written into the shards.
//
// optimizer_offload (fsdp_config.optimizer_offload): masters and moments live on the CPU; the
// gradients are copied there for the update and the result copied back.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "verlpp/dist/communicator.h"
#include "verlpp/engine/fsdp/sharded_model.h"
#include "verlpp/engine/lr_schedule.h"

namespace verlpp::engine {

struct AdamWConfig {
  LrScheduleConfig schedule;
  double weight_decay = 0.01;
  double beta1 = 0.9, beta2 = 0.999;
  double eps = 1e-8;
  double clip_grad = 1.0;
  bool optimizer_offload = false;  // fsdp_config.optimizer_offload
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
  // Over `sharded`'s shards; throws as above.
  Optimizer(std::shared_ptr<fsdp::ShardedModel> sharded, const AdamWConfig& config,
            std::int64_t total_training_steps);
  ~Optimizer();

  StepResult step();
  void zero_grad();
  void advance_lr();
  double lr() const;

  // Bytes of masters and moments on this rank.
  std::int64_t state_bytes() const;
  // The number of shards the state is split into (1 unless sharded) and this rank's shard.
  std::int64_t shard_count() const;
  std::int64_t shard_index() const;
  // Whether this rank writes its shard's file: the first copy's ranks (hybrid sharding keeps
  // equal shards in every copy); a replicated state is written by the world's rank 0 (the
  // caller's).
  bool writes_shard() const;

  // Optimizer state to and from safetensors files in `folder`, one per shard, named as verl
  // names its per-rank files: optim_world_size_{W}_rank_{r}.safetensors with fp32 "master.i",
  // "exp_avg.i", "exp_avg_sq.i" of parameter i's rows that shard holds (shard_rows.h), int64
  // "adam_steps" [parameters] (each parameter's step t; files without it give every parameter
  // the metadata adam_step) and metadata verlpp_format, world_size, rank, adam_step (the
  // largest t), scheduler_step. save() writes this
  // rank's file through a temporary name (a replicated run calls it on one rank). load() reads
  // the rows this rank needs from the files of whatever world size wrote them (resharding), or a
  // single optimizer.bin of earlier verlpp versions, and sets the parameters from the masters. It
  // throws verlpp::Error naming the file when one is missing, unreadable, of another format, or
  // holds other parameter counts or shapes than the model's.
  void save(const std::string& folder) const;
  void load(const std::string& folder);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace verlpp::engine
