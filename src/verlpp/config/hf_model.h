// verl's model section (model/hf_model.yaml: actor_rollout_ref.model, critic.model, the SFT
// trainer's model) as the model layer reads it, the way verl's HFModelConfig does: the Hugging
// Face config from hf_config_path when set, else from path, with override_config applied on top
// (verl's update_model_config; model::apply_config_overrides); the weights and the generation
// config from path. `~/` is expanded in both (as `verlpp check` does).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "verlpp/config/finding.h"
#include "verlpp/config/sections.h"
#include "verlpp/model/model_config.h"

namespace verlpp::config {

// The folder of the weights: `path`, ~ expanded.
std::string model_weights_dir(const ModelConfig& model);

// What is applied to the config: override_config's model_config map when it has that key (verl's
// HFModelConfig and Megatron workers take it so), else the whole map. Throws verlpp::Error naming
// SECTION.override_config.model_config when that is not a map.
nlohmann::json hf_config_overrides(const ModelConfig& model, const std::string& section);

// The model's config. `section` is the section's dotted path ("actor_rollout_ref.model"): a
// config that cannot be read or is refused throws verlpp::Error naming SECTION.hf_config_path or
// SECTION.path (whichever it came from) and the file.
model::ModelConfig load_hf_model_config(const ModelConfig& model, const std::string& section);

// What `verlpp check` reads of the same config (model::read_model_shape with the overrides).
model::ModelShapeRead read_hf_model_shape(const ModelConfig& model, const std::string& section);

// SECTION.hf_config_path when it is set, else SECTION.path: the key the config came from.
std::string hf_config_key(const ModelConfig& model, const std::string& section);

// check's reading of a model section: read_hf_model_shape, with an error on the config's key
// (hf_config_key) when the config is there but refused, and findings on override_config where
// the config loads: an override the loaded config does not hold (model::overrides_without_effect:
// a field verlpp's model does not read, a misspelt one) is an error on
// SECTION.override_config.FIELD, as any key verlpp does not read; fields that only choose
// transformers' implementation or ids verl itself sets from the tokenizer (attn_implementation,
// pad_token_id, use_cache, output_attentions, output_hidden_states, return_dict) are a notice.
model::ModelShapeRead check_hf_model(const ModelConfig& model, const std::string& section,
                                     Findings& out);

}  // namespace verlpp::config
