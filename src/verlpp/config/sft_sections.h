// Typed view of `verlpp sft`'s configuration (config/sft_trainer.yaml: verl's
// sft_trainer_engine.yaml flattened, verl.md §8.2) and its validation. Defaults come from the
// YAML, never from here.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/config/compose.h"
#include "verlpp/config/finding.h"
#include "verlpp/config/node.h"
#include "verlpp/config/sections.h"

namespace verlpp::config {

struct SftDataConfig {
  std::vector<std::string> train_files, val_files;
  std::int64_t train_batch_size = 0;          // sequences per optimizer step (global)
  std::int64_t micro_batch_size_per_gpu = 0;  // sequences per forward/backward (no dynamic bsz)
  std::int64_t max_token_len_per_gpu = 0;     // token budget per micro-batch (use_dynamic_bsz)
  bool use_dynamic_bsz = true;
  std::int64_t train_max_samples = -1, val_max_samples = -1;
  std::string messages_key;                             // multi-turn rows: chat messages
  std::optional<std::string> prompt_key, response_key;  // single-turn rows (both set)
  // Single-turn rows whose prompt/response column holds nested maps: the keys to follow into them
  // (verl's older +data.prompt_dict_keys / +data.response_dict_keys; absent from the YAML).
  std::vector<std::string> prompt_dict_keys, response_dict_keys;
  std::optional<std::string> tools_key;            // multi-turn rows: a column of tool schemas
  std::optional<std::string> enable_thinking_key;  // multi-turn rows: a column of booleans
  std::optional<bool> enable_thinking_default;     // for rows without that column; null: unset
  std::int64_t max_length = 0;                     // tokens per sequence
  std::string truncation;                          // error | left | right
  std::string pad_mode;                            // no_padding (packed sequences)
  bool ignore_input_ids_mismatch = false;
  nlohmann::ordered_json apply_chat_template_kwargs;  // an object, given to the chat template
};

struct SftTrainerConfig {
  std::string project_name, experiment_name, default_local_dir, resume_mode, device;
  std::optional<std::string> resume_from_path;
  std::vector<std::string> logger;
  std::int64_t total_epochs = 1, save_freq = -1, test_freq = -1, seed = 1, nnodes = 1,
               n_gpus_per_node = 1;
  std::optional<std::int64_t> total_training_steps, max_ckpt_to_keep;
};

struct SftConfig {
  SftDataConfig data;
  ModelConfig model;
  OptimConfig optim;
  std::string engine_strategy, engine_dtype;  // engine.strategy, engine.dtype (compute dtype)
  ShardingConfig engine_sharding;             // engine.fsdp_size, *_offload, reshard_after_forward
  std::int64_t ulysses_sequence_parallel_size = 1;  // engine.*: checked, trained as data parallel
  SftTrainerConfig trainer;
  CheckpointContents checkpoint;  // checkpoint.save_contents / load_contents
};

// Reads the typed sections from a resolved sft_trainer tree. Throws verlpp::Error naming the key
// for a value of the wrong type, an absent key, or an unset required value.
SftConfig bind_sft_config(const Node& root, KeyReads* reads = nullptr);

// Rule violations as findings (key, what is wrong, one fix): batch sizes, max_length, truncation,
// pad_mode, prompt_key/response_key set together, optimizer values, save/test frequencies,
// resume_mode, positive nnodes and n_gpus_per_node (their product must equal the run's ranks,
// checked when the run starts).
Findings validate_sft_config(const SftConfig& config);

// What `verlpp sft` checks before it runs, and `verlpp check` for an SFT config: the composed
// tree, the bound config, validate_sft_config's findings and the audit of unread keys
// (refuse_unread_keys; `ignored` the engine settings it lists).
struct SftCheckReport {
  ComposedConfig composed;
  SftConfig config;
  Findings findings;
  std::vector<std::string> ignored;
};
// Throws verlpp::Error as compose_config and bind_sft_config do.
SftCheckReport check_sft_config(const ConfigRequest& request);
// The same on a tree already composed from `request`.
SftCheckReport check_sft_config(const ConfigRequest& request, ComposedConfig composed);

// Whether a composed tree is an SFT config (no actor_rollout_ref section: sft_trainer or a config
// built on it).
bool is_sft_config(const ComposedConfig& composed);

}  // namespace verlpp::config
