// A config value as JSON, for the settings verlpp hands on whole (data.apply_chat_template_kwargs,
// given to the chat template as extra variables).
#pragma once

#include <nlohmann/json.hpp>

#include "verlpp/config/node.h"

namespace verlpp::config {

// Booleans, integers, reals, strings, lists and maps as JSON (map order kept); null and OmegaConf's
// missing value "???" as null.
nlohmann::ordered_json node_to_json(const Node& node);

}  // namespace verlpp::config
