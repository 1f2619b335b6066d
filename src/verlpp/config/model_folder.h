// Model folders (actor_rollout_ref.model.path, critic.model.path, sft's model.path, the tools'
// --model and --tokenizer): a training checkpoint's global_step_N folder given instead of a Hugging
// Face folder gets an error that says where its model is, instead of "cannot open config.json".
#pragma once

#include <string>

#include "verlpp/config/finding.h"

namespace verlpp::config {

// "" when `dir` may be a Hugging Face folder; otherwise the error (CLI11 check's convention): for a
// global_step_N folder whose actor/huggingface holds the model, where to point instead.
std::string hf_folder_error(const std::string& dir);

// The same for a config key (`path` as written, ~ allowed): an error finding on `key` whose fix
// names the checkpoint's actor/huggingface folder.
void check_model_folder(const std::string& key, const std::string& path, Findings& out);

}  // namespace verlpp::config
