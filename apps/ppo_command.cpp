// `verlpp ppo` (alias `main_ppo`): PPO/GRPO training, verl's main_ppo.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "config_options.h"
#include "verlpp/config/check.h"
#include "verlpp/demo/demo.h"
#include "verlpp/trainer/placement.h"
#include "verlpp/trainer/ppo_trainer.h"
#include "verlpp/trainer/signals.h"

namespace verlpp::apps {

Command add_ppo_command(CLI::App& app) {
  auto request = std::make_shared<config::ConfigRequest>();
  CLI::App* ppo = app.add_subcommand("ppo", "PPO/GRPO training (verl's main_ppo)");
  ppo->alias("main_ppo");
  add_config_options(*ppo, *request);
  return {
      ppo, [ppo, request] {
        // No config option and no override: the built-in demo (README's first command).
        if (ppo->count("overrides") + ppo->count("--config-path") + ppo->count("--config-name") ==
            0) {
          demo::run_demo("verlpp_demo");
          return 0;
        }
        const auto report = config::check_config(*request);
        const config::TrainerConfig& t = report.config.trainer;
        trainer::check_launched_world(t.n_gpus_per_node, t.nnodes);
        if (!report.valid()) {
          std::cout << config::format_report(report);
          return 1;
        }
        print_notices("ppo", report.findings);
        print_ignored_keys("ppo", report.ignored);
        return trainer::stopped_exit_code(trainer::run_ppo(report).stop_signal);
      }};
}

}  // namespace verlpp::apps
