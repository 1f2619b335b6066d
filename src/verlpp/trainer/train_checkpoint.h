// What one checkpoint holds and how it is read back, shared by `verlpp ppo` and `verlpp sft`
// (verl.md §7.5; layout inside the global_step_N folder that trainer/checkpoint_dir.h writes):
//
//   global_step_N/actor/huggingface/   config.json + model.safetensors (the model's weights in its
//                                      dtype, loadable by transformers and by model.path) and the
//                                      tokenizer files (tokenizer.json, tokenizer_config.json,
//                                      generation_config.json when present)
//   global_step_N/actor/optim_world_size_{W}_rank_{r}.safetensors
//                                      engine::Optimizer::save: fp32 masters, moments and lr
//                                      position of shard r of W (W = 1 unless sharded; verl's
//                                      per-rank files, which verl names .pt)
//   global_step_N/critic/...           the same for the critic, when there is one
//   global_step_N/trainer_state.json   {"global_step", "dataloader" (data::DataLoaderState),
//                                       "rng" (hex CPU generator states), "kl_coef", ...}
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "verlpp/dist/communicator.h"
#include "verlpp/engine/fsdp/sharded_model.h"
#include "verlpp/engine/optimizer.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::trainer {

// Copies the tokenizer files transformers reads (tokenizer.json, tokenizer_config.json,
// vocab.json, merges.txt, special_tokens_map.json, added_tokens.json, tokenizer.model,
// chat_template.jinja, generation_config.json; those present) from `from` into `to`. Throws
// verlpp::Error when `from` has none of them, one is not a regular file, one of the small JSON
// settings (all but tokenizer.json) is not valid JSON, or a copy fails.
void copy_tokenizer_files(const std::filesystem::path& from, const std::filesystem::path& to);

// Where a checkpoint's tokenizer files come from: a folder (empty: none), and the chat template
// that replaces the folder's own (verl's model.custom_chat_template), if any.
struct TokenizerSource {
  std::string dir;
  std::optional<std::string> chat_template;
  std::string chat_template_key = "model.custom_chat_template";  // names it in errors
};

// The run's tokenizer: source.dir's, with source.chat_template in place of its own. Throws
// verlpp::Error for a folder without tokenizer.json or a template that does not parse.
tokenizer::Tokenizer load_tokenizer(const TokenizerSource& source);

// copy_tokenizer_files from source.dir, then its chat_template written into the copy's
// tokenizer_config.json (and any chat_template.jinja removed), so that transformers and verlpp
// read the template the run used, as verl's save_pretrained of the tokenizer leaves it.
void save_tokenizer(const TokenizerSource& source, const std::filesystem::path& to);

// Writes {role_folder}/huggingface/ (rank 0, with the full weights: gathered from the shards
// when `sharded`, one collective per unit) and the optimizer files (every rank when sharded, else
// rank 0); `on_main` runs on rank 0 while the full weights are present. Every rank of `world`
// calls it. Throws verlpp::Error naming the file on an I/O failure.
void save_model_state(const std::filesystem::path& role_folder, const model::CausalLM& model,
                      const engine::Optimizer& optimizer, const TokenizerSource& tokenizer,
                      const dist::Communicator& world, engine::fsdp::ShardedModel* sharded,
                      const std::function<void()>& on_main = {});

// Restores weights and optimizer state saved by save_model_state into an existing model of the same
// shape, from files of any world size (the optimizer reshards). A sharded model takes its weights
// from the optimizer's masters; a replicated one also reads huggingface/. Throws verlpp::Error
// naming the folder when a file is missing or unreadable, or when the checkpoint's config.json
// describes another model (naming the differing field).
void load_model_state(const std::filesystem::path& role_folder, model::CausalLM& model,
                      engine::Optimizer& optimizer, bool sharded);

// trainer_state.json, written atomically; read_trainer_state throws verlpp::Error naming the file
// when it is missing or not a JSON object.
void write_trainer_state(const std::filesystem::path& step_folder, const nlohmann::json& state);
nlohmann::json read_trainer_state(const std::filesystem::path& step_folder);

}  // namespace verlpp::trainer
