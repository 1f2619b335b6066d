#include "verlpp/config/hf_model.h"

#include <fmt/format.h>

#include "verlpp/config/home_path.h"
#include "verlpp/core/error.h"

namespace verlpp::config {

namespace {

std::string config_dir(const ModelConfig& model) {
  return expand_home(model.hf_config_path.value_or(model.path));
}

}  // namespace

std::string model_weights_dir(const ModelConfig& model) { return expand_home(model.path); }

std::string hf_config_key(const ModelConfig& model, const std::string& section) {
  return section + (model.hf_config_path ? ".hf_config_path" : ".path");
}

model::ModelConfig load_hf_model_config(const ModelConfig& model, const std::string& section) {
  try {
    return model::load_model_config(config_dir(model), model.override_config);
  } catch (const Error& e) {
    throw Error(fmt::format("{}={}: {}", hf_config_key(model, section),
                            model.hf_config_path.value_or(model.path), e.what()));
  }
}

model::ModelShapeRead read_hf_model_shape(const ModelConfig& model) {
  return model::read_model_shape(config_dir(model), model.override_config);
}

}  // namespace verlpp::config
