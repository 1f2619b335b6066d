// Model folders (actor_rollout_ref.model.path and tokenizer_path, critic.model.path, sft's
// model.path and tokenizer_path, the tools' --model and --tokenizer): a folder of a training
// checkpoint given instead of a Hugging Face folder gets an error that says where its model is,
// instead of "cannot open config.json" or "tokenizer.json: cannot open": a global_step_N folder
// (its {role}/huggingface), its actor/ or critic/ folder (their huggingface/), or the run's
// checkpoint folder (trainer.default_local_dir: the newest step's, from
// latest_checkpointed_iteration.txt).
#pragma once

#include <string>

#include "verlpp/config/finding.h"

namespace verlpp::config {

// "" when `dir` may be a Hugging Face folder; otherwise the error: what `dir` is and the folder
// that holds its actor's model (a CLI11 check of the tools' --model and --tokenizer).
std::string hf_folder_error(const std::string& dir);

// The same for a config key (`path` as written, ~ allowed) and the model of `role` (actor or
// critic, else the actor's): an error finding on `key` whose fix names the folder that holds it.
void check_model_folder(const std::string& key, const std::string& path, const std::string& role,
                        Findings& out);

}  // namespace verlpp::config
