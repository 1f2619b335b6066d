// The on-policy distillation teachers of a PPO run (distillation.*; verl.md §4): each teacher
// model as an engine::Scorer on its device, and which rows each one scores.
//
// One teacher (the entry teacher_model, or a lone keyed entry: with keyed entries teacher_model is
// dropped, as verl does) scores every row. Several keyed entries
// (+distillation.teacher_models.<name>.{key, model_path, ...}) score the rows whose non-tensor
// field distillation.teacher_key (default data_source) equals their key. The query is verl's:
// the teacher's log-probs of the student's prompt + response at temperature 1.0 (the inference
// temperature key is ignored, as verl ignores it), the actual tokens for the estimator loss modes,
// the top-k (distillation_loss.topk) for forward_kl_topk.
//
// Placement: on CUDA each rank's teachers sit on cuda:(LOCAL_WORLD_SIZE + LOCAL_RANK mod
// distillation.n_gpus_per_node) when this host has that many more devices than ranks; otherwise
// they are colocated with the student on the rank's own device (the one-GPU case). In
// inference.dtype (rollout.dtype, bfloat16 by default) on CUDA, fp32 on the CPU.
// inference.tensor/expert_parallel_size only size the pool (layout check). A single teacher
// colocated with the students of several ranks is sharded over them as the reference policy is
// (engine/scorer.h: each rank keeps 1/W of its weights, a pass gathers one layer at a time); a
// teacher on devices of its own, and several keyed teachers (whose rows per rank differ, so their
// passes could not be matched over the ranks), are whole on every rank.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/config/sections.h"
#include "verlpp/data/batch.h"
#include "verlpp/dist/communicator.h"
#include "verlpp/dist/launch_env.h"
#include "verlpp/engine/scorer.h"
#include "verlpp/model/model_config.h"

namespace verlpp::trainer {

class Teachers {
 public:
  // Loads the teachers of config.distillation. Throws verlpp::Error naming the key for a
  // model_path that is not set or not a model folder, a teacher whose vocabulary size differs
  // from `student_vocab` (both sizes), or distillation_loss.topk outside [1, vocabulary] with
  // forward_kl_topk. `images`: the student's vision config when the data has images (each teacher
  // is loaded with its vision tower and must take the same image patches and tokens: an error
  // names the teacher and the first vision_config field that differs, or its missing
  // vision_config), else null.
  Teachers(const config::Config& config, std::int64_t student_vocab,
           const model::VisionConfig* images, const at::Device& student, const dist::LaunchEnv& env,
           const dist::Communicator& world);

  // Sets, on the whole batch of every rank, teacher_log_prob fp32 [B, R] (estimator loss modes)
  // or teacher_topk_ids int64 / teacher_topk_log_probs fp32 [B, R, k] (forward_kl_topk): each
  // rank scores its contiguous slice (data_parallel.h local_rows), the slices are all-gathered.
  // `world` is the constructor's.
  // Throws verlpp::Error naming distillation.teacher_key and the row's uid and value when a row
  // matches no keyed teacher, or when the rows lack the teacher_key field.
  void score(data::Batch& batch, const dist::Communicator& world) const;

  // fp32 [B, R] on the student's device, 0 beyond each response: at every response token the
  // reverse KL(student || the row's teacher) over the whole vocabulary (engine::Scorer::
  // reverse_kl), the student at `temperature`, the teacher at 1; no gradients, micro-batched as
  // the teachers' scoring is. For validation: rows that match no keyed teacher get NaN
  // (validation data need not have a teacher). `student` must hold full weights. Every rank
  // calls it with the same batch.
  at::Tensor reverse_kl(const data::Batch& batch, const model::CausalLM& student,
                        double temperature) const;

 private:
  struct Entry {
    std::string key;
    std::unique_ptr<engine::Scorer> scorer;
  };
  // The rows of `batch` each entry scores (indices into entries_; empty lists included). Keyed
  // teachers take the rows whose teacher_key field equals their key; a row matching none is an
  // error with every_row, else left out.
  std::vector<std::vector<std::int64_t>> route(const data::Batch& batch, bool every_row) const;
  // What score() sets for `batch`'s rows (tensor name, values on the student's device).
  std::vector<std::pair<std::string, at::Tensor>> query(const data::Batch& batch) const;

  std::vector<Entry> entries_;
  std::string teacher_key_;
  bool keyed_ = false;     // several +teacher_models.<name>.key entries: routed by teacher_key
  std::int64_t topk_ = 0;  // 0: estimator modes (the actual tokens' log-probs)
  at::Device student_device_;
};

}  // namespace verlpp::trainer
