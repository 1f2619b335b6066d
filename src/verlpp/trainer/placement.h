// Where a training run's process sits: its rank among the launched ranks, its device and the
// c10d group joining them (distributed.md §6). verl's rule: the run has trainer.nnodes ×
// trainer.n_gpus_per_node ranks, one per device.
#pragma once

#include <c10/core/Device.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "verlpp/config/sections.h"
#include "verlpp/dist/communicator.h"
#include "verlpp/dist/launch_env.h"
#include "verlpp/engine/fsdp/sharded_model.h"

namespace verlpp::trainer {

struct RunPlacement {
  dist::LaunchEnv env;
  at::Device device = at::Device(at::kCPU);  // CUDA: cuda:LOCAL_RANK
  dist::Communicator world;                  // no c10d group for an unlaunched process
};

// Throws verlpp::Error, as place_run does, when this launched process (RANK/WORLD_SIZE set) has
// another number of ranks than n_gpus_per_node × nnodes; a single process is left to place_run.
// The commands ask it before they report the config's problems, which are judged for the
// configured world (bt12: a 2-rank launch of an 8-GPU config was first told to change its
// micro-batch size).
void check_launched_world(std::int64_t n_gpus_per_node, std::int64_t nnodes);

// Reads the launch environment (dist::launch_env_from_environment), sets the log rank, picks the
// device from `requested_device` (trainer.device, as select_device does) and, for a launched run,
// joins the c10d group with `timeout`. Throws verlpp::Error naming both numbers when
// n_gpus_per_node × nnodes differs from WORLD_SIZE (with how to fix it), or when LOCAL_RANK has no
// CUDA device.
RunPlacement place_run(const std::string& requested_device, std::int64_t n_gpus_per_node,
                       std::int64_t nnodes, std::chrono::milliseconds timeout);

// How a trained model is held, from its engine's keys (`section`.fsdp_size, param_offload,
// reshard_after_forward): sharded over the world when there are several ranks and fsdp_size is
// below 0 or at least the world size (verl's reading, config::fsdp_group_size), over groups of
// fsdp_size ranks (hybrid sharding) for a divisor of the world between 1 and it, and also on one
// rank when param_offload asks for the shards on the CPU; replicated (nullopt) otherwise, i.e.
// fsdp_size 1. Throws verlpp::Error naming `section`.fsdp_size for 0 or a size that does not
// divide the world (config::fsdp_size_problem).
std::optional<engine::fsdp::FsdpSettings> sharding_settings(const config::ShardingConfig& config,
                                                            std::int64_t world,
                                                            const std::string& section);

}  // namespace verlpp::trainer
