// `verlpp ppo` (alias `main_ppo`): PPO/GRPO training, verl's main_ppo.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "config_options.h"
#include "verlpp/config/check.h"
#include "verlpp/trainer/ppo_trainer.h"

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
            trainer::run_ppo(report);
            return 0;
          }};
}

}  // namespace verlpp::apps
