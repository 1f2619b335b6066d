// The `verlpp` command line: one subcommand per apps/<name>_command.cpp.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "commands.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"

int main(int argc, char** argv) {
  CLI::App app{"verlpp: verl's RL post-training (GRPO, PPO, distillation, SFT) in one C++ binary"};
  app.require_subcommand(1);
  const std::vector<verlpp::apps::Command> commands = {
      verlpp::apps::add_check_command(app),    verlpp::apps::add_data_command(app),
      verlpp::apps::add_generate_command(app), verlpp::apps::add_launch_command(app),
      verlpp::apps::add_ppo_command(app),      verlpp::apps::add_model_command(app),
      verlpp::apps::add_reward_command(app),   verlpp::apps::add_sft_command(app),
      verlpp::apps::add_tokenize_command(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    if (app.get_subcommands().empty()) {
      verlpp::log_line(std::string("error: the first argument must be a command (") +
                       (argc > 1 ? std::string("got '") + argv[1] + "'; " : "") +
                       "verlpp --help lists them)");
      return 1;
    }
    std::string command = "verlpp";
    for (const CLI::App* a = &app; !a->get_subcommands().empty();
         a = a->get_subcommands().front()) {
      command += " " + a->get_subcommands().front()->get_name();
    }
    verlpp::log_line(std::string("error: ") + e.what() + " (see " + command + " --help)");
    return 1;
  }
  try {
    for (const auto& command : commands) {
      if (command.app->parsed()) return command.run();
    }
    return 1;
  } catch (const verlpp::Error& e) {
    verlpp::log_line(std::string("error: ") + e.what());
    return 1;
  } catch (const std::exception& e) {
    verlpp::log_line(std::string("internal error: ") + e.what());
    return 1;
  }
}
