// `verlpp ppo` (alias `main_ppo`): PPO/GRPO training, verl's main_ppo.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "config_options.h"
#include "verlpp/config/check.h"
#include "verlpp/core/device.h"

namespace verlpp::apps {

Command add_ppo_command(CLI::App& app) {
  auto request = std::make_shared<config::ConfigRequest>();
  CLI::App* ppo = app.add_subcommand("ppo", "PPO/GRPO training (verl's main_ppo)");
  ppo->alias("main_ppo");
  add_config_options(*ppo, *request);
  return {ppo, [request] {
            const auto report = config::check_config(*request);
            if (!report.valid()) {
              std::cout << config::format_report(report);
              return 1;
            }
            const DeviceKind device = select_device(report.config.trainer.device);
            std::cerr << "verlpp: configuration valid, device " << device_name(device)
                      << "; the PPO trainer is not built yet (issue 8), so nothing was trained\n";
            return 2;
          }};
}

}  // namespace verlpp::apps
