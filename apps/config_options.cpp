#include "config_options.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "verlpp/core/log.h"

namespace verlpp::apps {

void add_config_options(CLI::App& command, config::ConfigRequest& request) {
  command.add_option("--config-path", request.config_path,
                     "directory of the primary config (as Hydra's)");
  command.add_option("--config-name", request.config_name,
                     "primary config name (default " + request.config_name + ")");
  command.add_option("overrides", request.overrides,
                     "verl overrides: key=value, +key=value, ++key=value, ~key");
}

void print_notices(const std::string& command, const config::Findings& findings) {
  if (!is_main_rank()) return;
  for (const auto& f : findings) {
    if (f.severity != config::Finding::Severity::notice) continue;
    std::cerr << "verlpp " << command << ": note: " << f.key << ": " << f.message << "\n";
  }
}

void print_ignored_keys(const std::string& command, const std::vector<std::string>& keys) {
  if (!is_main_rank()) return;
  for (const std::string& key : keys) {
    std::cerr << "verlpp " << command << ": note: " << key
              << ": accepted but ignored (an engine or Python-only setting)\n";
  }
}

}  // namespace verlpp::apps
