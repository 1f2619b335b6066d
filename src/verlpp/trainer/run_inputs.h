// The files a run reads, each by the key that names it, for
// refuse_inputs_in_replaceable_checkpoints (checkpoint_dir.h): ppo and sft list their models'
// paths and data files the same way.
#pragma once

#include <string>
#include <vector>

#include "verlpp/config/sections.h"
#include "verlpp/trainer/checkpoint_dir.h"

namespace verlpp::trainer {

// SECTION.path, SECTION.tokenizer_path and SECTION.hf_config_path (the last two when set), `~/`
// expanded.
std::vector<RunInput> model_inputs(const std::string& section, const config::ModelConfig& model);

// data.train_files[i] and data.val_files[i], `~/` expanded.
std::vector<RunInput> data_inputs(const std::vector<std::string>& train_files,
                                  const std::vector<std::string>& val_files);

}  // namespace verlpp::trainer
