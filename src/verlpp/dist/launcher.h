// `verlpp launch`: starts the local ranks of a run as torchrun does (distributed.md §6.4) and
// watches them. Each rank is this binary with the given subcommand and arguments and torchrun's
// variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT,
// TORCH_NCCL_ASYNC_ERROR_HANDLING=1, VERLPP_LAUNCH=1 so that a rank names its launcher, and
// OMP_NUM_THREADS = cores / ranks when unset).
//
// When a rank fails (non-zero exit or a signal), the launcher says which one, gives the others
// `grace` to stop on their own (their next collective fails), then sends SIGTERM and, after
// another `grace`, SIGKILL. Each SIGINT/SIGTERM to the launcher is passed on to every rank
// (verlpp's trainers finish the step, save and exit 128 + the signal; a copy that also reached them
// from the terminal's process group counts once, trainer/signals.h); a rank that exits 130 or 143
// (a trainer stopped by a signal, this launcher's or one sent to the rank) is not a failure, and
// the launcher then exits with that status once every rank has.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace verlpp::dist {

struct LaunchOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  // Unset: a free port on one node (torchrun --standalone), 29500 on several.
  std::optional<int> master_port;
  std::chrono::milliseconds grace{10000};
};

// Throws verlpp::Error for sizes < 1, a node_rank outside [0, nnodes), a port outside
// [1, 65535], or (on node 0) a master port already taken on master_addr.
void check_launch_options(const LaunchOptions& options);

// Runs the ranks of this node: `program` (an absolute path) with `arguments`. Returns 0 when every
// rank exits 0, else the exit status of the first rank that failed (128 + signal for a signal),
// else that of the first rank a SIGINT/SIGTERM stopped.
int launch_local_ranks(const LaunchOptions& options, const std::string& program,
                       const std::vector<std::string>& arguments);

}  // namespace verlpp::dist
