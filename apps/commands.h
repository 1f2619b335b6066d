// Registration of the `verlpp` subcommands. Each subcommand lives in its own
// apps/<name>_command.cpp and adds itself to the CLI11 app; the returned callback runs it after
// parsing and returns the exit status (0 success, 1 bad input or failed check, 2 not available in
// this build).
#pragma once

#include <functional>
#include <vector>

namespace CLI {
class App;
}

namespace verlpp::apps {

struct Command {
  CLI::App* app;             // the parsed subcommand (owned by the parent CLI::App)
  std::function<int()> run;  // runs it; returns the process exit status
};

Command add_check_command(CLI::App& app);
Command add_data_command(CLI::App& app);
Command add_generate_command(CLI::App& app);
Command add_launch_command(CLI::App& app);
Command add_ppo_command(CLI::App& app);
Command add_model_command(CLI::App& app);
Command add_reward_command(CLI::App& app);
Command add_sft_command(CLI::App& app);
Command add_tokenize_command(CLI::App& app);

}  // namespace verlpp::apps
