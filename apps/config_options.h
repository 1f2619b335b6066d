// CLI options shared by the subcommands that take a verl configuration.
#pragma once

#include "verlpp/config/compose.h"

namespace CLI {
class App;
}

namespace verlpp::apps {

// Adds --config-path, --config-name and the positional verl overrides (key=value ...) to `command`,
// bound to `request`, which must outlive parsing.
void add_config_options(CLI::App& command, config::ConfigRequest& request);

}  // namespace verlpp::apps
