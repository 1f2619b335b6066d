// The --model and --tokenizer folders of the tools (generate, model score, tokenize): a training
// checkpoint's global_step_N folder given instead of a Hugging Face folder gets an error that says
// where its model is, instead of "cannot open config.json".
#pragma once

#include <string>

namespace verlpp::apps {

// "" when `dir` may be a Hugging Face folder; otherwise the error (CLI11 check's convention): for a
// global_step_N folder whose actor/huggingface holds the model, where to point instead.
std::string hf_folder_error(const std::string& dir);

}  // namespace verlpp::apps
