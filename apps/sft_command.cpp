// `verlpp sft`: supervised fine-tuning with verl's SFT trainer keys (config/sft_trainer.yaml).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "config_options.h"
#include "verlpp/config/check.h"
#include "verlpp/config/compose.h"
#include "verlpp/config/sft_sections.h"
#include "verlpp/core/log.h"
#include "verlpp/dist/launch_env.h"
#include "verlpp/trainer/sft_trainer.h"
#include "verlpp/trainer/signals.h"

namespace verlpp::apps {
namespace {

// Prints the findings; returns whether any is an error.
bool report_findings(const config::Findings& findings) {
  bool errors = false;
  for (const auto& f : findings) {
    if (f.severity == config::Finding::Severity::notice) {
      if (is_main_rank()) std::cerr << fmt::format("verlpp sft: note: {}: {}\n", f.key, f.message);
      continue;
    }
    errors = true;
    std::cerr << fmt::format("verlpp sft: ✗ {}: {}\n      fix: {}\n", f.key, f.message, f.fix);
  }
  return errors;
}

// The run's last line: where it stopped, its losses and the model for `verlpp ppo`.
void print_summary(const trainer::SftRunSummary& summary) {
  std::cout << fmt::format("verlpp sft: {} at step {}",
                           summary.stop_signal != 0 ? "stopped by a signal" : "finished",
                           summary.last_step);
  if (summary.last_train_loss)
    std::cout << fmt::format(", train/loss {:.4f}", *summary.last_train_loss);
  if (summary.last_val_loss) std::cout << fmt::format(", val/loss {:.4f}", *summary.last_val_loss);
  if (summary.last_checkpoint) {
    std::cout << "; model for `verlpp ppo`: "
              << (*summary.last_checkpoint / "actor" / "huggingface").string();
  }
  std::cout << "\n";
}

// verl's torchrun SFT trainer takes its world from the launch (WORLD_SIZE; one process without a
// launcher) and reads neither trainer.n_gpus_per_node nor trainer.nnodes (bt13: a copied 2-GPU
// SFT script with the default n_gpus_per_node 1 was refused): the run is judged and placed as
// one node of its own world. `verlpp check` still plans with the config's numbers.
config::ConfigRequest with_launched_world(config::ConfigRequest request) {
  const dist::LaunchEnv env = dist::launch_env_from_environment();
  if (env.launched) set_log_rank(env.rank, env.world_size);
  request.overrides.push_back("trainer.nnodes=1");
  request.overrides.push_back(
      fmt::format("trainer.n_gpus_per_node={}", env.launched ? env.world_size : 1));
  return request;
}

int run(const config::ConfigRequest& request) {
  const config::SftCheckReport report = config::check_sft_config(with_launched_world(request));
  print_ignored_keys("sft", report.ignored);
  if (report_findings(report.findings)) return 1;
  const trainer::SftRunSummary summary = trainer::run_sft(report.config);
  if (is_main_rank()) print_summary(summary);
  return trainer::stopped_exit_code(summary.stop_signal);
}

}  // namespace

Command add_sft_command(CLI::App& app) {
  auto request = std::make_shared<config::ConfigRequest>();
  request->config_name = "sft_trainer";
  CLI::App* sft = app.add_subcommand("sft", "supervised fine-tuning (verl's sft_trainer)");
  add_config_options(*sft, *request);
  return {sft, [request] { return run(*request); }};
}

}  // namespace verlpp::apps
