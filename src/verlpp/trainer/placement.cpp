#include "verlpp/trainer/placement.h"

#include <fmt/format.h>
#include <torch/cuda.h>

#include "verlpp/config/layout.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"

namespace verlpp::trainer {
namespace {

void check_world(const dist::LaunchEnv& env, std::int64_t n_gpus_per_node, std::int64_t nnodes) {
  const std::int64_t expected = n_gpus_per_node * nnodes;
  if (expected == env.world_size) return;
  const std::string how = env.launched
                              ? fmt::format("WORLD_SIZE={} from {}", env.world_size, env.source)
                              : "a single process (no RANK/WORLD_SIZE)";
  throw Error(fmt::format(
      "trainer.n_gpus_per_node × trainer.nnodes = {} × {} = {} ranks, but this run has {} ({}): "
      "set trainer.n_gpus_per_node={} trainer.nnodes=1, or start {} ranks with `verlpp launch "
      "--nproc-per-node {} ...`",
      n_gpus_per_node, nnodes, expected, env.world_size, how, env.world_size, expected,
      n_gpus_per_node));
}

at::Device rank_device(const dist::LaunchEnv& env, const std::string& requested) {
  if (select_device(requested) != DeviceKind::cuda) return at::Device(at::kCPU);
  const auto visible = static_cast<int>(torch::cuda::device_count());
  if (env.local_rank >= visible) {
    throw Error(fmt::format("LOCAL_RANK={} has no CUDA device: {} visible on this node",
                            env.local_rank, visible));
  }
  return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(env.local_rank));
}

}  // namespace

void check_launched_world(std::int64_t n_gpus_per_node, std::int64_t nnodes) {
  const dist::LaunchEnv env = dist::launch_env_from_environment();
  if (!env.launched) return;  // a single process: place_run judges it after the device
  set_log_rank(env.rank, env.world_size);
  check_world(env, n_gpus_per_node, nnodes);
}

RunPlacement place_run(const std::string& requested_device, std::int64_t n_gpus_per_node,
                       std::int64_t nnodes, std::chrono::milliseconds timeout) {
  RunPlacement out;
  out.env = dist::launch_env_from_environment();
  set_log_rank(out.env.rank, out.env.world_size);
  out.device = rank_device(out.env, requested_device);
  check_world(out.env, n_gpus_per_node, nnodes);
  if (out.env.launched) out.world = dist::Communicator::join(out.env, out.device, timeout);
  return out;
}

std::optional<engine::fsdp::FsdpSettings> sharding_settings(const config::ShardingConfig& config,
                                                            std::int64_t world,
                                                            const std::string& section) {
  if (const auto problem = config::fsdp_size_problem(config.fsdp_size, world)) {
    throw Error(fmt::format("{}.fsdp_size: {} (set {}.fsdp_size={})", section, problem->message,
                            section, problem->fix));
  }
  const std::int64_t size = config::fsdp_group_size(config.fsdp_size, world);
  if (!(size > 1 || config.param_offload)) return std::nullopt;
  engine::fsdp::FsdpSettings settings;
  settings.reshard_after_forward = config.reshard_after_forward;
  settings.param_offload = config.param_offload;
  settings.fsdp_size = size;
  return settings;
}

}  // namespace verlpp::trainer
