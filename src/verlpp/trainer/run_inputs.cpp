#include "verlpp/trainer/run_inputs.h"

#include <fmt/format.h>

#include <utility>

#include "verlpp/config/home_path.h"

namespace verlpp::trainer {

std::vector<RunInput> model_inputs(const std::string& section, const config::ModelConfig& model) {
  std::vector<RunInput> inputs = {{section + ".path", config::expand_home(model.path)}};
  for (const auto& [field, path] : {std::pair{".tokenizer_path", &model.tokenizer_path},
                                    std::pair{".hf_config_path", &model.hf_config_path}}) {
    if (*path) inputs.push_back({section + field, config::expand_home(**path)});
  }
  return inputs;
}

std::vector<RunInput> data_inputs(const std::vector<std::string>& train_files,
                                  const std::vector<std::string>& val_files) {
  std::vector<RunInput> inputs;
  for (const auto& [key, files] :
       {std::pair{"data.train_files", &train_files}, std::pair{"data.val_files", &val_files}}) {
    for (std::size_t i = 0; i < files->size(); ++i) {
      inputs.push_back({fmt::format("{}[{}]", key, i), config::expand_home((*files)[i])});
    }
  }
  return inputs;
}

}  // namespace verlpp::trainer
