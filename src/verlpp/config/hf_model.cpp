#include "verlpp/config/hf_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "verlpp/config/home_path.h"
#include "verlpp/core/error.h"

namespace verlpp::config {

namespace {

std::string config_dir(const ModelConfig& model) {
  return expand_home(model.hf_config_path.value_or(model.path));
}

bool has_model_config(const ModelConfig& model) {
  return model.override_config.is_object() && model.override_config.contains("model_config");
}

// Transformers' implementation choices and ids verl sets from the tokenizer: verlpp has one
// attention and its own stop ids, so an override of them changes nothing worth refusing.
bool implementation_choice(const std::string& field) {
  static constexpr std::array<const char*, 6> kFields = {
      "attn_implementation", "pad_token_id",         "use_cache",
      "output_attentions",   "output_hidden_states", "return_dict"};
  return std::find(kFields.begin(), kFields.end(), field) != kFields.end();
}

}  // namespace

std::string model_weights_dir(const ModelConfig& model) { return expand_home(model.path); }

std::string hf_config_key(const ModelConfig& model, const std::string& section) {
  return section + (model.hf_config_path ? ".hf_config_path" : ".path");
}

nlohmann::json hf_config_overrides(const ModelConfig& model, const std::string& section) {
  if (!has_model_config(model)) return model.override_config;
  const nlohmann::json& inner = model.override_config["model_config"];
  if (!inner.is_object() && !inner.is_null()) {
    throw Error(
        fmt::format("{}.override_config.model_config: expected a map of config.json "
                    "fields, got {}",
                    section, inner.dump()));
  }
  return inner;
}

model::ModelConfig load_hf_model_config(const ModelConfig& model, const std::string& section) {
  const nlohmann::json overrides = hf_config_overrides(model, section);
  try {
    return model::load_model_config(config_dir(model), overrides);
  } catch (const Error& e) {
    throw Error(fmt::format("{}={}: {}", hf_config_key(model, section),
                            model.hf_config_path.value_or(model.path), e.what()));
  }
}

model::ModelShapeRead read_hf_model_shape(const ModelConfig& model, const std::string& section) {
  nlohmann::json overrides;
  try {
    overrides = hf_config_overrides(model, section);
  } catch (const Error& e) {
    model::ModelShapeRead read;
    read.why_not = e.what();
    return read;
  }
  return model::read_model_shape(config_dir(model), overrides);
}

namespace {

void check_override_config(const ModelConfig& model, const std::string& section, Findings& out) {
  if (model.override_config.empty()) return;
  model::ModelConfig loaded;
  nlohmann::json overrides;
  try {
    overrides = hf_config_overrides(model, section);
    loaded = model::load_model_config(config_dir(model), overrides);
  } catch (const Error&) {
    return;  // read_hf_model_shape's finding says why (or the config is not on this machine)
  }
  const std::string prefix =
      section + ".override_config." + (has_model_config(model) ? "model_config." : "");
  for (const std::string& field : model::overrides_without_effect(loaded, overrides)) {
    if (implementation_choice(field)) {
      add_notice(out, prefix + field,
                 "accepted but ignored: verlpp has one attention "
                 "implementation and takes its ids from the tokenizer");
      continue;
    }
    add_error(out, prefix + field,
              "verlpp's model does not read this config.json field (or reads it elsewhere): "
              "the override would have no effect and the checkpoint's config.json would not "
              "hold it",
              "remove it, or check its spelling");
  }
}

}  // namespace

model::ModelShapeRead check_hf_model(const ModelConfig& model, const std::string& section,
                                     Findings& out) {
  model::ModelShapeRead read = read_hf_model_shape(model, section);
  if (!read.shape && !read.absent) {
    add_error(out, hf_config_key(model, section), read.why_not,
              model.override_config.empty()
                  ? "fix or replace the model's config.json"
                  : "fix " + section + ".override_config or the model's config.json");
  }
  check_override_config(model, section, out);
  return read;
}

}  // namespace verlpp::config
