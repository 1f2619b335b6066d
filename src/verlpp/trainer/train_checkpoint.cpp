#include "verlpp/trainer/train_checkpoint.h"

#include <sstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_file.h"
#include "verlpp/model/model_config.h"

namespace verlpp::trainer {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTrainerStateFile = "trainer_state.json";

void require_file(const fs::path& path, const std::string& what) {
  if (nothing_at(path.string())) {
    throw Error("checkpoint file missing: " + path.string() + " (" + what + ")");
  }
  require_regular_file(path.string(), what);
}

void create_folder(const fs::path& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw Error("cannot create checkpoint folder " + folder.string() + ": " + ec.message());
}

// The first shape field in which `saved` and `current` differ, as "field (saved vs current)";
// empty when the two describe the same model.
std::string shape_difference(const model::ModelConfig& saved, const model::ModelConfig& current) {
  const auto describe = [](const char* field, auto a, auto b) {
    std::ostringstream out;
    out << field << " is " << a << " in the checkpoint but " << b << " in the model being trained";
    return out.str();
  };
  if (saved.architecture != current.architecture) {
    return describe("architectures", model::architecture_class(saved.architecture),
                    model::architecture_class(current.architecture));
  }
  const std::vector<std::pair<const char*, std::pair<std::int64_t, std::int64_t>>> sizes = {
      {"vocab_size", {saved.vocab_size, current.vocab_size}},
      {"hidden_size", {saved.hidden_size, current.hidden_size}},
      {"intermediate_size", {saved.intermediate_size, current.intermediate_size}},
      {"num_hidden_layers", {saved.num_hidden_layers, current.num_hidden_layers}},
      {"num_attention_heads", {saved.num_attention_heads, current.num_attention_heads}},
      {"num_key_value_heads", {saved.num_key_value_heads, current.num_key_value_heads}},
      {"head_dim", {saved.head_dim, current.head_dim}},
      {"tie_word_embeddings", {saved.tie_word_embeddings, current.tie_word_embeddings}},
      {"attention_bias", {saved.o_bias, current.o_bias}},
      {"mlp_bias", {saved.mlp_bias, current.mlp_bias}},
  };
  for (const auto& [field, values] : sizes) {
    if (values.first != values.second) return describe(field, values.first, values.second);
  }
  return {};
}

}  // namespace

void copy_tokenizer_files(const fs::path& from, const fs::path& to) {
  int copied = 0;
  for (const char* name : {"tokenizer.json", "tokenizer_config.json", "vocab.json", "merges.txt",
                           "special_tokens_map.json", "added_tokens.json", "tokenizer.model",
                           "chat_template.jinja", "generation_config.json"}) {
    const fs::path source = from / name;
    if (nothing_at(source.string())) continue;
    require_regular_file(source.string(), "tokenizer file");
    // The small hand-edited JSON settings are checked before they travel into a checkpoint or an
    // export (tokenizer.json was parsed when the tokenizer was loaded).
    if (std::string_view(name).ends_with(".json") && std::string_view(name) != "tokenizer.json") {
      read_json_file(source.string(), "tokenizer file");
    }
    std::error_code ec;
    fs::copy_file(source, to / name, fs::copy_options::overwrite_existing, ec);
    if (ec)
      throw Error("cannot copy " + source.string() + " to " + to.string() + ": " + ec.message());
    ++copied;
  }
  if (copied == 0)
    throw Error("tokenizer folder " + from.string() +
                " has no tokenizer files (tokenizer.json, ...)");
}

tokenizer::Tokenizer load_tokenizer(const TokenizerSource& source) {
  tokenizer::Tokenizer tokenizer = tokenizer::Tokenizer::from_directory(source.dir);
  if (source.chat_template) {
    tokenizer.set_chat_template(*source.chat_template, source.chat_template_key);
  }
  return tokenizer;
}

void save_tokenizer(const TokenizerSource& source, const fs::path& to) {
  if (source.dir.empty()) return;
  copy_tokenizer_files(source.dir, to);
  if (!source.chat_template) return;
  const fs::path path = to / "tokenizer_config.json";
  auto config = !nothing_at(path.string())
                    ? read_ordered_json_file(path.string(), "tokenizer config")
                    : nlohmann::ordered_json::object();
  config["chat_template"] = *source.chat_template;
  write_file_atomically(path, config.dump(2) + "\n");
  std::error_code ec;
  fs::remove(to / "chat_template.jinja", ec);
}

void save_model_state(const fs::path& role_folder, const model::CausalLM& model,
                      const engine::Optimizer& optimizer, const TokenizerSource& tokenizer,
                      const dist::Communicator& world, engine::fsdp::ShardedModel* sharded,
                      const std::function<void()>& on_main) {
  create_folder(role_folder);
  if (sharded) sharded->gather_all();
  if (world.is_main()) {
    const fs::path hf_folder = role_folder / "huggingface";
    create_folder(hf_folder);
    model.save_pretrained(hf_folder.string(), model.dtype());
    save_tokenizer(tokenizer, hf_folder);
    if (on_main) on_main();
  }
  if (sharded) sharded->reshard();
  const bool whole = optimizer.shard_count() == 1;
  if (whole ? world.is_main() : optimizer.writes_shard()) optimizer.save(role_folder.string());
}

void load_model_state(const fs::path& role_folder, model::CausalLM& model,
                      engine::Optimizer& optimizer, bool sharded) {
  const fs::path hf_folder = role_folder / "huggingface";
  require_file(hf_folder / "config.json", "the model's Hugging Face config");
  const model::ModelConfig saved = model::load_model_config(hf_folder.string());
  const std::string difference = shape_difference(saved, model.config());
  if (!difference.empty()) {
    throw Error("checkpoint " + role_folder.string() + " is from another model: " + difference);
  }
  if (!sharded) {
    if (!fs::exists(hf_folder / "model.safetensors") &&
        !fs::exists(hf_folder / "model.safetensors.index.json")) {
      require_file(hf_folder / "model.safetensors", "the model's weights");
    }
    model.load_weights(hf_folder.string());
  }
  optimizer.load(role_folder.string());
}

void write_trainer_state(const fs::path& step_folder, const nlohmann::json& state) {
  write_file_atomically(step_folder / kTrainerStateFile, state.dump(2) + "\n");
}

nlohmann::json read_trainer_state(const fs::path& step_folder) {
  const fs::path path = step_folder / kTrainerStateFile;
  require_file(path, "the trainer's step, dataloader and RNG state");
  const nlohmann::json state = read_json_file(path.string(), "trainer state");
  if (!state.is_object()) throw Error(path.string() + ": expected a JSON object");
  return state;
}

}  // namespace verlpp::trainer
