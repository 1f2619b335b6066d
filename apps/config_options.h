// CLI options shared by the subcommands that take a verl configuration.
#pragma once

#include <string>
#include <vector>

#include "verlpp/config/compose.h"
#include "verlpp/config/finding.h"

namespace CLI {
class App;
}

namespace verlpp::apps {

// Adds --config-path, --config-name and the positional verl overrides (key=value ...) to `command`,
// bound to `request`, which must outlive parsing.
void add_config_options(CLI::App& command, config::ConfigRequest& request);

// One stderr line per notice of a valid config ("verlpp COMMAND: note: KEY: MESSAGE"), as `check`
// lists them, before a run starts; rank 0 only (this and print_ignored_keys).
void print_notices(const std::string& command, const config::Findings& findings);

// One stderr note per key the user set that verlpp accepts and does not act on (the report's
// `ignored`), "verlpp COMMAND: note: KEY: accepted but ignored ...", before a run starts.
void print_ignored_keys(const std::string& command, const std::vector<std::string>& keys);

}  // namespace verlpp::apps
