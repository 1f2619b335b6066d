#include "verlpp/dist/launch_env.h"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>

#include "verlpp/core/error.h"

namespace verlpp::dist {
namespace {

using Getenv = std::function<const char*(const char*)>;

std::optional<std::string> value_of(const Getenv& getenv, const char* name) {
  const char* v = getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

// The leading integer of `text` ("8(x2)" -> 8 when `prefix_only`), else the whole text.
int parse_int(const std::string& text, const char* name, bool prefix_only = false) {
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || (!prefix_only && used != text.size()) || value < 0 || value > 1 << 30) {
    throw Error(fmt::format("{}='{}': expected a non-negative integer", name, text));
  }
  return static_cast<int>(value);
}

int int_or(const Getenv& getenv, const char* name, int fallback, bool prefix_only = false) {
  const auto v = value_of(getenv, name);
  return v ? parse_int(*v, name, prefix_only) : fallback;
}

void read_master(const Getenv& getenv, LaunchEnv& env) {
  if (const auto addr = value_of(getenv, "MASTER_ADDR")) env.master_addr = *addr;
  env.master_port = int_or(getenv, "MASTER_PORT", env.master_port);
  if (env.master_port < 1 || env.master_port > 65535) {
    throw Error(fmt::format("MASTER_PORT={}: expected a port in [1, 65535]", env.master_port));
  }
}

void read_torchrun(const Getenv& getenv, LaunchEnv& env) {
  env.source = value_of(getenv, "VERLPP_LAUNCH") ? "verlpp launch" : "torchrun";
  env.rank = int_or(getenv, "RANK", 0);
  if (!value_of(getenv, "WORLD_SIZE")) {
    throw Error("RANK is set but WORLD_SIZE is not: set both (torchrun and verlpp launch do)");
  }
  env.world_size = int_or(getenv, "WORLD_SIZE", 1);
  env.local_rank = int_or(getenv, "LOCAL_RANK", env.rank);
  env.local_world_size = int_or(getenv, "LOCAL_WORLD_SIZE", env.world_size);
  env.node_rank = int_or(getenv, "GROUP_RANK", 0);
  const auto agent = value_of(getenv, "TORCHELASTIC_USE_AGENT_STORE");
  env.agent_store = agent && (*agent == "True" || *agent == "true" || *agent == "1");
  env.restart_count = int_or(getenv, "TORCHELASTIC_RESTART_COUNT", 0);
}

void read_slurm(const Getenv& getenv, LaunchEnv& env) {
  env.source = "slurm";
  env.rank = int_or(getenv, "SLURM_PROCID", 0);
  env.world_size = int_or(getenv, "SLURM_STEP_NUM_TASKS", 1);
  env.local_rank = int_or(getenv, "SLURM_LOCALID", 0);
  env.local_world_size =
      int_or(getenv, "SLURM_STEP_TASKS_PER_NODE", env.world_size, /*prefix_only=*/true);
  env.node_rank = int_or(getenv, "SLURM_NODEID", 0);
  if (!value_of(getenv, "MASTER_ADDR") && env.world_size > env.local_world_size) {
    throw Error(
        "MASTER_ADDR is not set: under srun on several nodes set it to the first host of "
        "$SLURM_JOB_NODELIST (scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n1)");
  }
}

void check_ranks(const LaunchEnv& env) {
  if (env.world_size < 1) throw Error("WORLD_SIZE=0: expected at least one rank");
  if (env.rank >= env.world_size) {
    throw Error(fmt::format("RANK={} is outside [0, WORLD_SIZE={})", env.rank, env.world_size));
  }
  if (env.local_world_size < 1 || env.local_rank >= env.local_world_size) {
    throw Error(fmt::format("LOCAL_RANK={} is outside [0, LOCAL_WORLD_SIZE={})", env.local_rank,
                            env.local_world_size));
  }
}

}  // namespace

LaunchEnv read_launch_env(const Getenv& getenv) {
  LaunchEnv env;
  if (value_of(getenv, "RANK")) {
    read_torchrun(getenv, env);
  } else if (value_of(getenv, "SLURM_PROCID") && value_of(getenv, "SLURM_STEP_NUM_TASKS")) {
    read_slurm(getenv, env);
  } else {
    return env;
  }
  env.launched = true;
  read_master(getenv, env);
  check_ranks(env);
  return env;
}

LaunchEnv launch_env_from_environment() {
  return read_launch_env([](const char* name) { return std::getenv(name); });
}

}  // namespace verlpp::dist
