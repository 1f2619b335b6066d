// verl's model section (model/hf_model.yaml: actor_rollout_ref.model, critic.model, the SFT
// trainer's model) as the model layer reads it, the way verl's HFModelConfig does: the Hugging
// Face config from hf_config_path when set, else from path, with override_config applied on top
// (verl's update_model_config; model::apply_config_overrides); the weights and the generation
// config from path. `~/` is expanded in both (as `verlpp check` does).
#pragma once

#include <string>

#include "verlpp/config/sections.h"
#include "verlpp/model/model_config.h"

namespace verlpp::config {

// The folder of the weights: `path`, ~ expanded.
std::string model_weights_dir(const ModelConfig& model);

// The model's config. `section` is the section's dotted path ("actor_rollout_ref.model"): a
// config that cannot be read or is refused throws verlpp::Error naming SECTION.hf_config_path or
// SECTION.path (whichever it came from) and the file.
model::ModelConfig load_hf_model_config(const ModelConfig& model, const std::string& section);

// What `verlpp check` reads of the same config (model::read_model_shape with the overrides).
model::ModelShapeRead read_hf_model_shape(const ModelConfig& model);

// SECTION.hf_config_path when it is set, else SECTION.path: the key the config came from.
std::string hf_config_key(const ModelConfig& model, const std::string& section);

}  // namespace verlpp::config
