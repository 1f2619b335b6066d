// Loading the model of one of verl's model sections (actor_rollout_ref.model, critic.model, the
// SFT trainer's model): its config as config/hf_model.h reads it (hf_config_path,
// override_config), its weights from path.
#pragma once

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <string>

#include "verlpp/config/sections.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::trainer {

// `model_config` is the section's config as config::load_hf_model_config read it (the caller
// reads it once for all its uses), `section` the section's dotted path; with_vision as
// CausalLM::from_pretrained, `loading` as weight_loading below. Throws verlpp::Error naming
// SECTION.path for weights that cannot be read (bt13: verl's default critic path, a folder on
// verl's machines, failed as "model config: no such file" without the key).
model::CausalLM load_hf_model(const model::ModelConfig& model_config,
                              const config::ModelConfig& model, const std::string& section,
                              at::ScalarType dtype, const at::Device& device, bool with_vision,
                              model::WeightLoading loading = model::WeightLoading::whole);

// Deferred for a model that its engine shards (each rank reads only its own rows), else whole.
model::WeightLoading weight_loading(bool sharded);

}  // namespace verlpp::trainer
