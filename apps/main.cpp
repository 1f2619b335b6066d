// The `verlpp` command line. Subcommands take verl's Hydra-style overrides (key=value ...).
#include <CLI/CLI.hpp>
#include <iostream>

#include "verlpp/config/check.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"

namespace {

void add_config_options(CLI::App& command, verlpp::config::ConfigRequest& request) {
  command.add_option("--config-path", request.config_path,
                     "directory of the primary config (as Hydra's)");
  command.add_option("--config-name", request.config_name,
                     "primary config name (default ppo_trainer)");
  command.add_option("overrides", request.overrides,
                     "verl overrides: key=value, +key=value, ++key=value, ~key");
}

int run_check(const verlpp::config::ConfigRequest& request, bool print_config) {
  const auto report = verlpp::config::check_config(request);
  if (print_config) std::cout << verlpp::config::to_yaml(report.composed.root);
  std::cout << verlpp::config::format_report(report);
  return report.valid() ? 0 : 1;
}

int run_ppo(const verlpp::config::ConfigRequest& request) {
  const auto report = verlpp::config::check_config(request);
  if (!report.valid()) {
    std::cout << verlpp::config::format_report(report);
    return 1;
  }
  const verlpp::DeviceKind device = verlpp::select_device(report.config.trainer.device);
  std::cerr << "verlpp: configuration valid, device " << verlpp::device_name(device)
            << "; the PPO trainer is not built yet (issue 8), so nothing was trained\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"verlpp: verl's RL post-training (GRPO, PPO, distillation, SFT) in one C++ binary"};
  app.require_subcommand(1);

  verlpp::config::ConfigRequest check_request;
  bool print_config = true;
  CLI::App* check = app.add_subcommand(
      "check", "resolve and validate a config and its parallel layout; run nothing");
  add_config_options(*check, check_request);
  check->add_flag("!--no-print-config", print_config, "print only the layout and the findings");

  verlpp::config::ConfigRequest ppo_request;
  CLI::App* ppo = app.add_subcommand("ppo", "PPO/GRPO training (verl's main_ppo)");
  ppo->alias("main_ppo");
  add_config_options(*ppo, ppo_request);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    if (check->parsed()) return run_check(check_request, print_config);
    return run_ppo(ppo_request);
  } catch (const verlpp::Error& e) {
    std::cerr << "verlpp: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "verlpp: internal error: " << e.what() << "\n";
    return 1;
  }
}
