// The run's tokenizer folder (actor_rollout_ref.model.tokenizer_path, else model.path; sft's
// model.tokenizer_path, else model.path) checked before launch: loaded as `ppo` and `sft` load it
// (tokenizer.json, tokenizer_config.json with its chat template, generation_config.json), so that a
// missing, truncated or unsupported tokenizer file is an error from `check`, not from the run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/config/finding.h"

namespace verlpp::config {

// `path` as written (~ allowed), `key` the key that named it. Adds:
// - nothing when the folder is a training checkpoint's (check_model_folder reports that);
// - a notice when its tokenizer.json is absent (a hub id, a path on the launch machine, a folder
//   of config.json only): not checked, as an absent config.json is not;
// - an error when it is absent from a folder that holds a model's weights (the run would load
//   the model and then fail on the tokenizer), whose fix names the tokenizer_path key;
// - an error with the loader's message when the tokenizer does not load;
// - an error for each of `readers` (the models that embed its ids: the actor, a critic) whose
//   embedding lacks some of its ids: the tokenizer's vocab_size (1 + its largest id) above the
//   model's config.json vocab_size (an index error deep in the run otherwise).
struct VocabReader {
  std::string name;  // "the model", "the critic" (critic.model.path)
  std::int64_t vocab_size = 0;
};
void check_tokenizer_folder(const std::string& key, const std::string& path,
                            const std::vector<VocabReader>& readers, Findings& out);

}  // namespace verlpp::config
