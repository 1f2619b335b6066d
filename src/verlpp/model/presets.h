// Named model shapes for `verlpp model init --preset NAME`, copied from the models' published
// Hugging Face config.json files.
#pragma once

#include <string>
#include <vector>

#include "verlpp/model/model_config.h"

namespace verlpp::model {

// Names accepted by preset_config.
std::vector<std::string> preset_names();
// Throws verlpp::Error listing the known names when `name` is not one.
ModelConfig preset_config(const std::string& name);

}  // namespace verlpp::model
