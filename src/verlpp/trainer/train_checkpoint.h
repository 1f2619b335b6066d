// What one checkpoint holds and how it is read back, shared by `verlpp ppo` and `verlpp sft`
// (verl.md §7.5; layout inside the global_step_N folder that trainer/checkpoint_dir.h writes):
//
//   global_step_N/actor/huggingface/   config.json + model.safetensors (the model's weights in its
//                                      dtype, loadable by transformers and by model.path) and the
//                                      tokenizer files (tokenizer.json, tokenizer_config.json,
//                                      generation_config.json when present)
//   global_step_N/actor/optimizer.bin  engine::Optimizer::save (fp32 masters, moments, lr position)
//   global_step_N/critic/...           the same for the critic, when there is one
//   global_step_N/trainer_state.json   {"global_step", "dataloader" (data::DataLoaderState),
//                                       "rng" (hex CPU generator states), "kl_coef", ...}
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "verlpp/engine/optimizer.h"
#include "verlpp/model/causal_lm.h"

namespace verlpp::trainer {

// Copies the tokenizer files transformers reads (tokenizer.json, tokenizer_config.json,
// vocab.json, merges.txt, special_tokens_map.json, added_tokens.json, tokenizer.model,
// chat_template.jinja, generation_config.json; those present) from `from` into `to`. Throws
// verlpp::Error when `from` has none of them or a copy fails.
void copy_tokenizer_files(const std::filesystem::path& from, const std::filesystem::path& to);

// Writes {role_folder}/huggingface/ and {role_folder}/optimizer.bin. tokenizer_dir may be empty.
// Throws verlpp::Error naming the file on an I/O failure.
void save_model_state(const std::filesystem::path& role_folder, const model::CausalLM& model,
                      const engine::Optimizer& optimizer, const std::string& tokenizer_dir);

// Restores weights and optimizer state saved by save_model_state into an existing model of the same
// shape. Throws verlpp::Error naming the folder when a file is missing or unreadable, or when the
// checkpoint's config.json describes another model (naming the differing field).
void load_model_state(const std::filesystem::path& role_folder, model::CausalLM& model,
                      engine::Optimizer& optimizer);

// trainer_state.json, written atomically; read_trainer_state throws verlpp::Error naming the file
// when it is missing or not a JSON object.
void write_trainer_state(const std::filesystem::path& step_folder, const nlohmann::json& state);
nlohmann::json read_trainer_state(const std::filesystem::path& step_folder);

}  // namespace verlpp::trainer
