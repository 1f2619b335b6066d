// `verlpp model score` (log-likelihood of given responses), `verlpp model init` (a random-init
// Hugging Face checkpoint) and `verlpp model export` (a training checkpoint's actor as an HF
// folder).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "temperature_option.h"
#include "verlpp/config/model_folder.h"
#include "verlpp/core/device.h"
#include "verlpp/core/dtype.h"
#include "verlpp/core/error.h"
#include "verlpp/core/host_memory.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/model_config.h"
#include "verlpp/model/presets.h"
#include "verlpp/model/score.h"
#include "verlpp/rollout/sampling.h"
#include "verlpp/tokenizer/tokenizer.h"
#include "verlpp/trainer/checkpoint_dir.h"
#include "verlpp/trainer/train_checkpoint.h"

namespace verlpp::apps {

namespace {

namespace fs = std::filesystem;

struct ScoreOptions {
  std::string model;
  std::string input;
  double temperature = 1.0;
  std::string dtype;  // default: bfloat16 on cuda, float32 on cpu
  std::string device = "cuda";
  int64_t max_batch_tokens = 8192;
  int threads = 0;
};

int run_score(const ScoreOptions& o) {
  compat::set_cpu_threads(o.threads);
  const bool cuda = select_device(o.device, "--device") == DeviceKind::cuda;
  const at::Device device = cuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  const at::ScalarType dtype =
      parse_dtype(o.dtype.empty() ? (cuda ? "bfloat16" : "float32") : o.dtype, "--dtype");
  const auto lm = model::CausalLM::from_pretrained(o.model, dtype, device);
  model::apply_batch_invariant_setting(lm);
  const auto requests = model::read_score_requests(o.input, lm.config().vocab_size, true,
                                                   lm.config().max_position_embeddings);
  // At 0, the greedy log-probs verl's trainer takes (the temperature clamped, as it does).
  const double temperature = std::max(o.temperature, rollout::kMinLogProbTemperature);
  const auto results = model::score(lm, requests, temperature, o.max_batch_tokens);
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (!std::isfinite(r.sum)) {
      throw Error(fmt::format(
          "{}: row {}: a log-prob is not a finite number (NaN or inf weights in the model?)",
          o.input, i + 1));
    }
    std::cout << nlohmann::json{{"logprobs", r.logprobs}, {"sum", r.sum}}.dump() << "\n";
  }
  return 0;
}

struct InitOptions {
  std::string preset;
  std::string arch = "qwen3";
  model::ModelConfig config;
  std::string tie = "true";
  std::string dtype = "bfloat16";
  uint64_t seed = 0;
  double initializer_range = 0.02;
  std::string output;
  std::string tokenizer;
  uint64_t max_shard_bytes = 0;
  std::string norm_topk_prob = "true";
  std::vector<std::string> layer_types;  // qwen3_5: one per layer
  int64_t full_attention_interval = 4;
  model::VisionConfig vision;  // used when vision.depth > 0 (--vision-depth)
};

// The image tokens a vision-language checkpoint names, from its tokenizer (Qwen's strings).
void vision_tokens(const std::string& tokenizer_dir, model::VisionConfig& v) {
  if (tokenizer_dir.empty()) {
    throw Error("--vision-depth needs --tokenizer: the image token ids come from the tokenizer");
  }
  const auto tok = tokenizer::Tokenizer::from_directory(tokenizer_dir);
  const auto id = [&](const char* token) {
    const auto found = tok.token_to_id(token);
    if (!found) {
      throw Error(
          fmt::format("--tokenizer {}: no '{}' token (a Qwen vision-language tokenizer "
                      "is needed for --vision-depth)",
                      tokenizer_dir, token));
    }
    return static_cast<int64_t>(*found);
  };
  v.image_token_id = id("<|image_pad|>");
  v.video_token_id = id("<|video_pad|>");
  v.vision_start_token_id = id("<|vision_start|>");
  v.vision_end_token_id = id("<|vision_end|>");
}

// The model's embedding rows must hold every id of the tokenizer it is saved with (a prompt token
// beyond them could not be embedded).
void require_vocabulary_holds(const std::string& tokenizer_dir, int64_t vocab_size) {
  const std::int32_t ids = tokenizer::Tokenizer::from_directory(tokenizer_dir).vocab_size();
  if (ids > vocab_size) {
    throw Error(fmt::format(
        "--vocab-size {} is smaller than the {} token ids of --tokenizer {} (ids 0..{}); raise it",
        vocab_size, ids, tokenizer_dir, ids - 1));
  }
}

// A vision-language checkpoint (Qwen3.5's *ForConditionalGeneration layout): the tower of
// --vision-*, the image tokens of the tokenizer, M-RoPE sections over the rotary frequencies in
// Qwen3.5's proportions (t and h take the remainder first: 32 -> 11, 11, 10).
void vision_fields(const InitOptions& o, model::ModelConfig& c) {
  if (!c.is_qwen3_5()) throw Error("--vision-depth needs --arch qwen3_5 or qwen3_5_moe");
  model::VisionConfig v = o.vision;
  v.out_hidden_size = c.hidden_size;
  vision_tokens(o.tokenizer, v);
  for (const int64_t token :
       {v.image_token_id, v.video_token_id, v.vision_start_token_id, v.vision_end_token_id}) {
    if (token >= c.vocab_size) {
      throw Error(fmt::format(
          "--vocab-size {} does not hold the tokenizer's image token ids (up to {}); raise it",
          c.vocab_size, token));
    }
  }
  const auto rotary =
      static_cast<int64_t>(static_cast<double>(c.head_dim) * c.partial_rotary_factor);
  const int64_t n = rotary / 2, base = n / 3, rest = n % 3;
  nlohmann::json j = model::model_config_to_json(c);
  j["rope_parameters"]["mrope_section"] = {base + (rest > 0), base + (rest > 1), base};
  j["rope_parameters"]["mrope_interleaved"] = true;
  c = model::parse_model_config(j, "verlpp model init");
  c.vision = v;
  c.vision_language = true;
  c = model::parse_model_config(model::model_config_to_json(c), "verlpp model init");
}

// Qwen3.5's own fields: layer types, Gated DeltaNet heads (defaults: the attention shape) and
// partial rotary, checked by the config parser (the errors a config.json would get).
void qwen3_5_fields(const InitOptions& o, const CLI::App& cmd, model::ModelConfig& c) {
  model::LinearAttentionConfig& l = c.linear_attention;
  if (cmd.count("--linear-num-key-heads") == 0) l.num_key_heads = c.num_key_value_heads;
  if (cmd.count("--linear-num-value-heads") == 0) l.num_value_heads = c.num_attention_heads;
  if (cmd.count("--linear-key-head-dim") == 0) l.key_head_dim = c.head_dim;
  if (cmd.count("--linear-value-head-dim") == 0) l.value_head_dim = c.head_dim;
  if (cmd.count("--partial-rotary-factor") == 0) c.partial_rotary_factor = 0.25;
  if (cmd.count("--shared-expert-intermediate-size") == 0) {
    c.moe.shared_expert_intermediate_size = c.moe.moe_intermediate_size;
  }
  nlohmann::json j = model::model_config_to_json(c);
  if (o.layer_types.empty()) {
    j.erase("layer_types");
    j["full_attention_interval"] = o.full_attention_interval;
  } else {
    j["layer_types"] = o.layer_types;
  }
  c = model::parse_model_config(j, "verlpp model init");
}

// The weights must fit this machine's memory (a break-test asked for 262 GB and got a LibTorch
// backtrace).
void require_memory_for(const model::ModelConfig& c, at::ScalarType dtype) {
  require_host_memory(
      static_cast<double>(c.num_parameters()) * static_cast<double>(c10::elementSize(dtype)),
      fmt::format("verlpp model init: {} parameters in {}", c.num_parameters(), dtype_name(dtype)));
}

// `model init` and `model export` write a new model; a folder that already holds one is refused (a
// break-test replaced a trained model by a random one with a mistyped --output, and an export over
// a sharded model left the old shards and index beside the new file).
void require_no_model_at(const std::string& output, const std::string& command) {
  std::error_code error;
  if (!fs::is_directory(output, error)) return;
  for (const auto& entry : fs::directory_iterator(output, error)) {
    const std::string name = entry.path().filename().string();
    if (name == "config.json" || name.ends_with(".safetensors") ||
        name == "model.safetensors.index.json") {
      throw Error("--output " + output + " already holds a model (" + name + "); " + command +
                  " never replaces one: give an empty or new folder");
    }
  }
}

// The init options a preset leaves to the user: where and how to write, the random init, and the
// vision tower (the presets are text models); every other one is the shape the preset fixes.
bool allowed_with_preset(const std::string& option) {
  for (const char* allowed : {"--output", "--preset", "--dtype", "--seed", "--initializer-range",
                              "--tokenizer", "--max-shard-bytes"}) {
    if (option == allowed) return true;
  }
  return option.rfind("--vision-", 0) == 0;
}

int run_init(InitOptions o, const CLI::App& cmd) {
  require_no_model_at(o.output, "model init");
  model::ModelConfig c = o.config;
  if (!o.preset.empty()) {
    // The preset fixes the shape: a shape option beside it was dropped without a word (report
    // bt10 wrote the full 0.6B model for --preset qwen3-0.6b --hidden-size 16).
    for (const CLI::Option* option : cmd.get_options()) {
      if (option->count() != 0 && !allowed_with_preset(option->get_name())) {
        throw Error(option->get_name() + " cannot be combined with --preset " + o.preset +
                    " (the preset fixes the shape); drop --preset and give --arch and the sizes");
      }
    }
    c = model::preset_config(o.preset);
  } else {
    c.architecture = model::parse_architecture(o.arch, "--arch");
    for (const char* required : {"--hidden-size", "--intermediate-size", "--num-hidden-layers",
                                 "--num-attention-heads", "--vocab-size"}) {
      if (cmd.count(required) == 0)
        throw Error(std::string(required) + " is required without --preset");
    }
    if (c.num_attention_heads < 1) throw Error("--num-attention-heads must be >= 1");
    if (cmd.count("--num-key-value-heads") == 0) c.num_key_value_heads = c.num_attention_heads;
    if (c.num_key_value_heads < 1) throw Error("--num-key-value-heads must be >= 1");
    if (cmd.count("--head-dim") == 0) c.head_dim = c.hidden_size / c.num_attention_heads;
    if (c.num_attention_heads % c.num_key_value_heads != 0) {
      throw Error("--num-attention-heads must be a multiple of --num-key-value-heads");
    }
    c.qkv_bias = c.architecture == model::Architecture::qwen2;
    c.qk_norm = c.architecture == model::Architecture::qwen3 ||
                c.architecture == model::Architecture::qwen3_moe;
    const bool sparse = c.architecture == model::Architecture::qwen3_moe ||
                        c.architecture == model::Architecture::qwen3_5_moe;
    if (sparse) {
      for (const char* required :
           {"--num-experts", "--num-experts-per-tok", "--moe-intermediate-size"}) {
        if (cmd.count(required) == 0)
          throw Error(std::string(required) + " is required with --arch " + o.arch);
      }
      if (c.moe.decoder_sparse_step < 1) throw Error("--decoder-sparse-step must be >= 1");
      if (c.moe.num_experts_per_tok < 1 || c.moe.num_experts_per_tok > c.moe.num_experts) {
        throw Error("--num-experts-per-tok must be in [1, --num-experts]");
      }
      for (const int64_t layer : c.moe.mlp_only_layers) {
        if (layer < 0 || layer >= c.num_hidden_layers)
          throw Error("--mlp-only-layers: " + std::to_string(layer) + " is not a layer index");
      }
      if (o.norm_topk_prob != "true" && o.norm_topk_prob != "false")
        throw Error("--norm-topk-prob: expected true or false");
      c.moe.norm_topk_prob = o.norm_topk_prob == "true";
    } else if (cmd.count("--num-experts") != 0) {
      throw Error("--num-experts needs --arch qwen3_moe or qwen3_5_moe");
    }
    if (o.tie != "true" && o.tie != "false")
      throw Error("--tie-word-embeddings: expected true or false");
    c.tie_word_embeddings = o.tie == "true";
    if (c.is_qwen3_5()) {
      qwen3_5_fields(o, cmd, c);
    } else if (!o.layer_types.empty() || cmd.count("--linear-num-key-heads") != 0) {
      throw Error("--layer-types and --linear-* need --arch qwen3_5 or qwen3_5_moe");
    }
  }
  if (o.vision.depth < 0) throw Error("--vision-depth must be >= 0");
  if (o.vision.depth > 0) vision_fields(o, c);
  // The rules a config.json gets (positive sizes, eps and rope base, sizes a model can have).
  c = model::parse_model_config(model::model_config_to_json(c), "verlpp model init");
  if (!std::isfinite(o.initializer_range) || o.initializer_range <= 0) {
    throw Error("--initializer-range must be a finite number > 0");
  }
  if (!o.tokenizer.empty()) require_vocabulary_holds(o.tokenizer, c.vocab_size);
  require_not_same(o.output, "--output", o.tokenizer, "--tokenizer");
  const at::ScalarType dtype = parse_dtype(o.dtype, "--dtype");
  require_memory_for(c, dtype);
  const auto lm = model::CausalLM::random_init(c, o.seed, o.initializer_range, dtype);
  lm.save_pretrained(o.output, dtype, o.max_shard_bytes);
  if (!o.tokenizer.empty()) trainer::copy_tokenizer_files(o.tokenizer, o.output);
  int64_t parameters = 0;
  for (const auto& [name, tensor] : lm.named_parameters()) parameters += tensor.numel();
  std::cerr << "verlpp: wrote "
            << model::model_config_to_json(lm.config())["architectures"][0].get<std::string>()
            << " (" << parameters << " parameters, " << dtype_name(dtype) << ") to " << o.output
            << "\n";
  return 0;
}

struct ExportOptions {
  std::string checkpoint;
  std::string output;
  std::string dtype;  // default: the checkpoint's
};

// The actor of a train checkpoint (global_step_N/actor/huggingface) as an HF folder.
int run_export(const ExportOptions& o) {
  const fs::path step_folder(o.checkpoint);
  if (!trainer::step_of_checkpoint(step_folder)) {
    throw Error("--checkpoint " + o.checkpoint +
                ": expected a checkpoint folder named global_step_N (inside "
                "trainer.default_local_dir)");
  }
  const fs::path actor = step_folder / "actor" / "huggingface";
  if (nothing_at((actor / "config.json").string())) {
    throw Error("--checkpoint " + o.checkpoint + ": no actor model (" +
                (actor / "config.json").string() + " is missing)");
  }
  require_regular_file((actor / "config.json").string(), "the actor's model config");
  // Writing into the checkpoint would replace the weights being exported (a break-test lost a
  // checkpoint's fp32 weights to an export into its own actor/huggingface).
  const std::string inside = fs::weakly_canonical(step_folder).string() + "/";
  if ((fs::weakly_canonical(o.output).string() + "/").starts_with(inside)) {
    throw Error("--output " + o.output + " is inside the checkpoint being exported (" +
                o.checkpoint + "); give a folder outside it");
  }
  require_no_model_at(o.output, "model export");
  const model::ModelConfig stored = model::load_model_config(actor.string());
  const at::ScalarType dtype =
      parse_dtype(o.dtype.empty() ? stored.torch_dtype : o.dtype, "--dtype");
  const auto lm = model::CausalLM::from_pretrained(actor.string(), dtype, at::Device(at::kCPU),
                                                   model::has_vision_tower(stored));
  lm.save_pretrained(o.output, dtype);
  if (!nothing_at((actor / "tokenizer.json").string())) {
    trainer::copy_tokenizer_files(actor, o.output);
  }
  std::cerr << "verlpp: exported " << actor.string() << " (" << dtype_name(dtype) << ") to "
            << o.output << "\n";
  return 0;
}

}  // namespace

Command add_model_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("model", "model checkpoints: score, init, export");
  cmd->require_subcommand(1);

  auto so = std::make_shared<ScoreOptions>();
  CLI::App* s = cmd->add_subcommand(
      "score", "per-token log-probs of responses: JSON lines {\"prompt_ids\", \"response_ids\"}");
  s->add_option("--model", so->model, "Hugging Face checkpoint directory")
      ->required()
      ->check(config::hf_folder_error);
  s->add_option("--input", so->input,
                "JSONL file of {\"prompt_ids\": [...], \"response_ids\": [...]}")
      ->required();
  s->add_option("--temperature", so->temperature,
                "logits are divided by it (default 1; 0: by 1e-8, as verl's trainer clamps it)")
      ->check(temperature_error);
  s->add_option("--dtype", so->dtype,
                "bfloat16, float16 or float32 (default: bfloat16 on cuda, float32 on cpu)");
  s->add_option("--device", so->device, "cuda (falls back to cpu without a GPU) or cpu");
  s->add_option("--max-batch-tokens", so->max_batch_tokens, "tokens per packed forward pass");
  s->add_option("--threads", so->threads, "CPU threads, >= 1 (default: all cores)")
      ->check(CLI::Range(1, 4096));

  auto io = std::make_shared<InitOptions>();
  CLI::App* i = cmd->add_subcommand("init", "write a random-init Hugging Face checkpoint");
  i->add_option("--output", io->output, "directory to write")->required();
  i->add_option(
      "--preset", io->preset,
      "qwen3-0.6b, qwen3-1.7b, qwen3-30b-a3b, qwen3.5-2b or qwen3.5-35b-a3b (sizes of the "
      "published config)");
  i->add_option("--arch", io->arch, "qwen3, qwen2, llama, qwen3_moe, qwen3_5 or qwen3_5_moe");
  i->add_option("--hidden-size", io->config.hidden_size);
  i->add_option("--intermediate-size", io->config.intermediate_size);
  i->add_option("--num-hidden-layers", io->config.num_hidden_layers);
  i->add_option("--num-attention-heads", io->config.num_attention_heads);
  i->add_option("--num-key-value-heads", io->config.num_key_value_heads,
                "default: attention heads");
  i->add_option("--head-dim", io->config.head_dim, "default: hidden size / attention heads");
  i->add_option("--vocab-size", io->config.vocab_size);
  i->add_option("--num-experts", io->config.moe.num_experts, "qwen3_moe: routed experts");
  i->add_option("--num-experts-per-tok", io->config.moe.num_experts_per_tok, "qwen3_moe: top-k");
  i->add_option("--moe-intermediate-size", io->config.moe.moe_intermediate_size,
                "qwen3_moe: each expert's SwiGLU width");
  i->add_option("--norm-topk-prob", io->norm_topk_prob, "qwen3_moe: true or false")
      ->default_val("true");
  i->add_option("--decoder-sparse-step", io->config.moe.decoder_sparse_step,
                "qwen3_moe: every k-th layer is sparse")
      ->default_val(1);
  i->add_option("--mlp-only-layers", io->config.moe.mlp_only_layers,
                "qwen3_moe: dense layers (indices)");
  i->add_option("--shared-expert-intermediate-size", io->config.moe.shared_expert_intermediate_size,
                "qwen3_5_moe: the shared expert (default: --moe-intermediate-size)");
  i->add_option("--layer-types", io->layer_types,
                "qwen3_5: full_attention or linear_attention per layer");
  i->add_option("--full-attention-interval", io->full_attention_interval,
                "qwen3_5 without --layer-types: every k-th layer is full attention")
      ->default_val(4);
  i->add_option("--linear-num-key-heads", io->config.linear_attention.num_key_heads,
                "qwen3_5: Gated DeltaNet key heads (default: key-value heads)");
  i->add_option("--linear-num-value-heads", io->config.linear_attention.num_value_heads,
                "qwen3_5: value heads (default: attention heads)");
  i->add_option("--linear-key-head-dim", io->config.linear_attention.key_head_dim,
                "qwen3_5 (default: head dim)");
  i->add_option("--linear-value-head-dim", io->config.linear_attention.value_head_dim,
                "qwen3_5 (default: head dim)");
  i->add_option("--linear-conv-kernel-dim", io->config.linear_attention.conv_kernel_dim,
                "qwen3_5: the short convolution's taps")
      ->default_val(4);
  i->add_option("--partial-rotary-factor", io->config.partial_rotary_factor,
                "qwen3_5: the share of head_dim RoPE rotates (default 0.25)");
  i->add_option("--max-position-embeddings", io->config.max_position_embeddings)
      ->default_val(32768);
  i->add_option("--rope-theta", io->config.rope_theta)->default_val(1000000.0);
  i->add_option("--rms-norm-eps", io->config.rms_norm_eps)->default_val(1e-6);
  i->add_option("--tie-word-embeddings", io->tie, "true or false")->default_val("true");
  i->add_option("--dtype", io->dtype, "bfloat16, float16 or float32")->default_val("bfloat16");
  i->add_option("--seed", io->seed)->default_val(0);
  i->add_option("--initializer-range", io->initializer_range, "std of the normal init")
      ->default_val(0.02);
  i->add_option("--tokenizer", io->tokenizer, "directory whose tokenizer files are copied in");
  i->add_option("--max-shard-bytes", io->max_shard_bytes, "shard the weights (0: one file)");
  io->vision.depth = 0;
  i->add_option("--vision-depth", io->vision.depth,
                "qwen3_5: a vision-language checkpoint with this many vision blocks (0: text only; "
                "needs --tokenizer for the image tokens)");
  i->add_option("--vision-hidden-size", io->vision.hidden_size)->default_val(32);
  i->add_option("--vision-num-heads", io->vision.num_heads)->default_val(2);
  i->add_option("--vision-intermediate-size", io->vision.intermediate_size)->default_val(64);
  i->add_option("--vision-patch-size", io->vision.patch_size,
                "pixels per patch side (Qwen3.5's processor: 16)")
      ->default_val(16);
  i->add_option("--vision-num-position-embeddings", io->vision.num_position_embeddings,
                "the learned position table's entries, a square")
      ->default_val(16);

  auto eo = std::make_shared<ExportOptions>();
  CLI::App* e = cmd->add_subcommand(
      "export", "write a training checkpoint's actor as a Hugging Face safetensors folder");
  e->add_option("--checkpoint", eo->checkpoint, "a global_step_N folder of a verlpp run")
      ->required();
  e->add_option("--output", eo->output, "directory to write")->required();
  e->add_option("--dtype", eo->dtype,
                "bfloat16, float16 or float32 (default: the checkpoint's dtype)");

  return {cmd, [cmd, s, i, e, so, io, eo] {
            if (s->parsed()) return run_score(*so);
            if (i->parsed()) return run_init(*io, *i);
            if (e->parsed()) return run_export(*eo);
            return 1;
          }};
}

}  // namespace verlpp::apps
