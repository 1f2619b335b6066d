// Parallel layout planning: how a configuration spreads the actor, reference, rollout and teacher
// models over trainer.nnodes × trainer.n_gpus_per_node devices, and the rules that make a layout
// invalid. Sources: verl/workers/engine_workers.py (rollout mesh), verl/workers/config/rollout.py,
// verl/workers/config/distillation.py, verl/workers/engine/fsdp, and Megatron-Core's
// parallel_state.initialize_model_parallel as called by verl's megatron engine
// (see ../shared/reference/verl.md §2 and §4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/config/finding.h"
#include "verlpp/config/sections.h"
#include "verlpp/model/model_config.h"

namespace verlpp::config {

struct MegatronLayout {
  std::string section;  // e.g. "actor_rollout_ref.actor.megatron"
  std::int64_t tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, vpp = 1;
  std::int64_t dp = 0;  // world / (tp·pp·cp); 0 when it does not divide
  std::int64_t expert_dp =
      0;  // world / (etp·ep·pp) under MoE parallel folding; 0 when it does not divide
  bool folding_valid = false;                  // expert layout valid under MoE parallel folding
  bool legacy_valid = false;                   // ... under the legacy rule (ep divides dense dp)
  std::vector<std::int64_t> layers_per_stage;  // empty when the layer count is unknown or invalid
};

struct FsdpLayout {
  std::string strategy;
  std::int64_t dp = 0, ulysses_sp = 1, fsdp_size = 0;
  std::int64_t turbo_fully_shard = 1, turbo_ep = 1, turbo_ulysses = 1;  // fsdp_turbo only
};

struct InferenceLayout {
  std::string name;  // "rollout" or the teacher entry name
  std::int64_t tp = 1, dp = 1, pp = 1, ep = 1;
  std::int64_t per_replica = 1, pool = 0, replicas = 0;  // replicas 0 when the pool does not divide
};

struct Layout {
  std::int64_t world = 0;  // trainer.nnodes × trainer.n_gpus_per_node
  std::int64_t actor_dp = 0;
  std::optional<FsdpLayout> actor_fsdp;
  std::optional<MegatronLayout> actor_megatron, ref_megatron;
  InferenceLayout rollout;
  std::vector<InferenceLayout> teachers;
  std::optional<model::ModelShape> model;
};

// An engine's fsdp_size as verl's create_device_mesh reads it (distributed.md §2.6): below 0 or at
// least the world, one copy sharded over all ranks; 1, replicated; 0 fails in verl (the world is
// divided by it); between 1 and the world, hybrid sharding (HSDP: world / fsdp_size copies, each
// sharded over fsdp_size consecutive ranks), which needs a divisor of the world.
// fsdp_group_size: the ranks one copy is sharded over for a valid size; fsdp_size_problem: what is
// wrong with any other, and the value that fixes it.
struct FsdpSizeProblem {
  std::string message;
  std::int64_t fix = -1;
};
std::optional<FsdpSizeProblem> fsdp_size_problem(std::int64_t fsdp_size, std::int64_t world);
std::int64_t fsdp_group_size(std::int64_t fsdp_size, std::int64_t world);

// Whether the run needs a reference policy / a critic (verl/trainer/ppo/utils.py).
bool need_reference_policy(const Config& config);
bool need_critic(const Config& config);

// Plans the layout and appends every violated parallel rule to `findings`. `model` (from
// config.json, when readable) enables the layer- and head-divisibility rules.
Layout plan_layout(const Config& config, const std::optional<model::ModelShape>& model,
                   Findings& findings);

// "5 + 14×6 + 5": consecutive equal stages grouped.
std::string format_stages(const std::vector<std::int64_t>& layers_per_stage);

}  // namespace verlpp::config
