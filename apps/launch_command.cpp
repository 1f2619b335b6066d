// `verlpp launch`: starts the local ranks of a multi-process `verlpp ppo` or `verlpp sft` run, as
// torchrun does (src/verlpp/dist/launcher.h).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <memory>
#include <set>
#include <string>

#include "commands.h"
#include "verlpp/core/error.h"
#include "verlpp/dist/launcher.h"

namespace verlpp::apps {
namespace {

std::string this_program() {
  char path[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) throw Error("verlpp launch: cannot find its own executable (/proc/self/exe)");
  return std::string(path, static_cast<std::size_t>(n));
}

struct LaunchRequest {
  dist::LaunchOptions options;
  int master_port = 0;  // 0: unset
};

int run(const LaunchRequest& request, const std::vector<std::string>& arguments) {
  static const std::set<std::string> kTrainers = {"ppo", "main_ppo", "sft"};
  if (arguments.empty() || !kTrainers.count(arguments.front())) {
    throw Error(fmt::format(
        "verlpp launch: expected the command to run (ppo or sft) after the launch options, got "
        "'{}'",
        arguments.empty() ? "" : arguments.front()));
  }
  dist::LaunchOptions options = request.options;
  if (request.master_port != 0) options.master_port = request.master_port;
  return dist::launch_local_ranks(options, this_program(), arguments);
}

}  // namespace

Command add_launch_command(CLI::App& app) {
  auto request = std::make_shared<LaunchRequest>();
  CLI::App* launch = app.add_subcommand(
      "launch", "start the ranks of a multi-process ppo or sft run on this node (like torchrun)");
  dist::LaunchOptions& o = request->options;
  launch->add_option("--nproc-per-node", o.nproc_per_node, "ranks on this node (one per device)")
      ->default_val(1);
  launch->add_option("--nnodes", o.nnodes, "nodes of the run")->default_val(1);
  launch->add_option("--node-rank", o.node_rank, "this node's index in [0, nnodes)")
      ->default_val(0);
  launch->add_option("--master-addr", o.master_addr, "address of node 0 (the c10d store)")
      ->default_val("127.0.0.1");
  launch->add_option("--master-port", request->master_port,
                     "port of the c10d store (default: a free port on one node, 29500 on several)");
  launch->prefix_command();
  launch->footer(
      "After the options: the command and its overrides, ppo|sft OVERRIDES... (for example "
      "verlpp launch --nproc-per-node 2 ppo data.train_files=...)\n");
  return {launch, [launch, request] { return run(*request, launch->remaining()); }};
}

}  // namespace verlpp::apps
