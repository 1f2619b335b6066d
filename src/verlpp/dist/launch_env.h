// Where this process sits in a multi-process run, read from the launcher's environment variables
// (distributed.md §6.4): torchrun's RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK,
// MASTER_ADDR, MASTER_PORT, TORCHELASTIC_USE_AGENT_STORE and TORCHELASTIC_RESTART_COUNT (also what
// `verlpp launch` sets), or SLURM's srun task variables when RANK is unset: SLURM_PROCID,
// SLURM_STEP_NUM_TASKS, SLURM_LOCALID, SLURM_STEP_TASKS_PER_NODE ("8" or "8(x2)"), SLURM_NODEID,
// with MASTER_ADDR/MASTER_PORT from the environment (default port 29500; MASTER_ADDR is required
// on more than one node). Only an srun step counts (SLURM_STEP_NUM_TASKS set): a plain process
// inside an sbatch allocation is a world of one.
#pragma once

#include <functional>
#include <string>

namespace verlpp::dist {

struct LaunchEnv {
  bool launched = false;  // false: no launcher variables, a plain process (world of one)
  // "torchrun", "verlpp launch" (torchrun's variables and VERLPP_LAUNCH=1), "slurm" or
  // "single process"
  std::string source = "single process";
  int rank = 0, world_size = 1;
  int local_rank = 0, local_world_size = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  // torchrun's agent serves the c10d store: every rank connects as a client under the prefix
  // /worker/attempt_<restart_count>, and rank 0 does not listen.
  bool agent_store = false;
  int restart_count = 0;
};

// Reads the variables through `getenv` (returns nullptr when unset). Throws verlpp::Error naming
// the variable for a value that is not an integer in range, a rank outside [0, WORLD_SIZE), a
// LOCAL_RANK outside [0, LOCAL_WORLD_SIZE), a port outside [1, 65535], or RANK without WORLD_SIZE.
LaunchEnv read_launch_env(const std::function<const char*(const char*)>& getenv);

// read_launch_env over this process's environment.
LaunchEnv launch_env_from_environment();

}  // namespace verlpp::dist
