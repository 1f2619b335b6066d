#include "verlpp/trainer/hf_model_loader.h"

#include <fmt/format.h>

#include "verlpp/config/hf_model.h"
#include "verlpp/core/error.h"

namespace verlpp::trainer {

model::CausalLM load_hf_model(const model::ModelConfig& model_config,
                              const config::ModelConfig& model, const std::string& section,
                              at::ScalarType dtype, const at::Device& device, bool with_vision,
                              model::WeightLoading loading) {
  try {
    return model::CausalLM::from_pretrained(model_config, config::model_weights_dir(model), dtype,
                                            device, with_vision, loading);
  } catch (const Error& e) {
    const bool overridden = !config::hf_config_overrides(model, section).empty();
    throw Error(
        fmt::format("{}.path={}: {}{}", section, model.path, e.what(),
                    overridden ? " (the config with " + section + ".override_config)" : ""));
  }
}

model::WeightLoading weight_loading(bool sharded) {
  return sharded ? model::WeightLoading::deferred : model::WeightLoading::whole;
}

}  // namespace verlpp::trainer
