// A model's parameters sharded over the ranks of a communicator, FSDP2-style (distributed.md §3;
// verl's actor_rollout_ref.actor.fsdp_config with fsdp_size = the world): each parameter's dim 0
// is split as shard_rows() says, each rank keeps only its shard between uses, and the full
// tensors exist only while a unit needs them.
//
// Units: the root (embedding, final norm, lm_head and any extra tensors such as a critic's value
// head) and one per decoder layer, from the weight table's `layer`. As the model's LayerHooks:
//   before_forward / before_layer   all-gather the unit (one collective per unit; the model's own
//                                   tensors get their storage back, filled with the full weights)
//   after_layer                     in a grad-enabled pass registers the unit's pre-backward
//                                   hook on the layer's outputs; frees the full weights when
//                                   reshard_after_forward (always in a no-grad pass)
//   pre-backward of layer i         reduce-scatters layer i+1's gradients (its backward is done)
//                                   and re-gathers layer i
// finish_backward() after every backward reduce-scatters what is left (layer 0, the root); each
// reduce-scatter is in fp32 and adds into this rank's fp32 gradient shards, which the optimizer
// (engine/optimizer.h) steps with its masters on the same rows. The collectives run in the same
// order on every rank as long as every rank runs the same number of forward/backward passes
// (micro_batch_indices equalises the counts).
//
// Hybrid sharding (FsdpSettings::fsdp_size): everything above happens within the rank's shard
// group; each reduce-scatter's result is then summed over the replica group, so the copies'
// shards, their gradients and (with identical optimizer steps) their updates stay equal.
//
// The model's parameter tensors keep their identity (autograd's saved tensors refer to them);
// only their storage is released and re-allocated (FSDP1's storage-resize technique), so a layer
// whose weights are freed after forward computes its backward with the re-gathered ones.
// param_offload keeps the shards on the CPU and copies them to the device for each gather.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/dist/communicator.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/layer_hooks.h"

namespace verlpp::engine::fsdp {

struct FsdpSettings {
  bool reshard_after_forward = true;  // fsdp_config.reshard_after_forward
  bool param_offload = false;         // fsdp_config.param_offload
  // fsdp_config.fsdp_size as config::fsdp_group_size reads it: the ranks one copy of the model is
  // sharded over. 0 (or the group's size): every rank of the group. Between 1 and the group's
  // size, hybrid sharding (HSDP) as verl's device mesh (ddp = size / fsdp_size, fsdp =
  // fsdp_size): ranks [k f, (k + 1) f) shard one copy, ranks with the same index in their copy
  // hold the same shard and sum their gradients.
  std::int64_t fsdp_size = 0;
};

// Bytes this rank holds between steps.
struct TrainingStateBytes {
  std::int64_t parameters = 0;  // the parameter shards (model dtype)
  std::int64_t gradients = 0;   // the fp32 gradient shards
};

class ShardedModel : public model::LayerHooks {
 public:
  // Shards `model`'s parameters except those named in `frozen` (left whole and untouched) and
  // `extra_root` (tensors outside the model that belong to the root unit) over `group` (or over
  // this rank's shard group of it, settings.fsdp_size), keeping this rank's shard, and installs
  // itself as the model's hooks. Every rank of `group` calls it together. Every tensor must be
  // contiguous with storage of its own. A model loaded with WeightLoading::deferred
  // (model/causal_lm.h) has its rows read from the checkpoint instead: each rank reads only its
  // shard's rows (and the frozen tensors whole), so no rank ever holds the whole model; shard ends
  // its loading. Throws verlpp::Error otherwise, and when fsdp_size does not divide the group's
  // size.
  static std::shared_ptr<ShardedModel> shard(
      model::CausalLM& model, const std::vector<std::pair<std::string, at::Tensor>>& extra_root,
      const std::vector<std::string>& frozen, dist::Communicator group, FsdpSettings settings);
  ~ShardedModel() override;

  void before_forward() override;
  void before_layer(std::int64_t layer) override;
  void after_layer(std::int64_t layer, const at::Tensor& hidden,
                   const at::Tensor& router_logits) override;

  // After each backward: reduce-scatters the gradients of every unit of that pass not yet
  // reduced, then frees their full weights.
  void finish_backward();
  // Frees every gathered unit (after a forward pass without gradients, and after gather_all).
  void reshard();
  // Gathers every unit, one collective each, and keeps them until reshard(): full weights for
  // the rollout and for writing a consolidated checkpoint.
  void gather_all();

  // For the optimizer, in declaration order (the model's parameters, then extra_root):
  // this rank's shards [capacity, ...] in the model dtype (on the CPU with param_offload),
  std::vector<at::Tensor> shards() const;
  // their fp32 gradient shards (undefined where no gradient arrived since zero_grad),
  std::vector<at::Tensor> gradient_shards() const;
  void zero_grad();
  // and each tensor's full shape.
  std::vector<std::vector<std::int64_t>> full_shapes() const;
  // The ranks this rank's copy is sharded over (the constructor's group unless hybrid), and the
  // ranks holding the same shard in the other copies (a world of one unless hybrid).
  const dist::Communicator& group() const;
  const dist::Communicator& replicas() const;
  // For logs: "sharded" over every rank, or "sharded over F ranks, C copies" (hybrid).
  std::string layout() const;
  TrainingStateBytes state_bytes() const;

  struct Impl;
  explicit ShardedModel(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace verlpp::engine::fsdp
