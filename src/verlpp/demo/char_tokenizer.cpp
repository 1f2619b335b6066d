#include "verlpp/demo/char_tokenizer.h"

#include <array>
#include <cstring>
#include <nlohmann/json.hpp>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"

namespace verlpp::demo {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::array<const char*, 4> kSpecial = {"<|pad|>", "<|user|>", "<|assistant|>", "<|end|>"};

constexpr const char* kChatTemplate =
    "{%- for message in messages %}"
    "{%- if message['role'] == 'assistant' %}"
    "{{- '<|assistant|>' + message['content'] + '<|end|>' }}"
    "{%- else %}"
    "{{- '<|user|>' + message['content'] }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|assistant|>' }}{%- endif %}";

int special_id(std::size_t index) { return static_cast<int>(std::strlen(kDemoCharacters) + index); }

Json tokenizer_json() {
  Json vocab = Json::object();
  for (std::size_t i = 0; kDemoCharacters[i] != '\0'; ++i) {
    vocab[std::string(1, kDemoCharacters[i])] = static_cast<int>(i);
  }
  Json added = Json::array();
  for (std::size_t i = 0; i < kSpecial.size(); ++i) {
    added.push_back({{"id", special_id(i)},
                     {"content", kSpecial[i]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens", added},
          {"normalizer", nullptr},
          {"pre_tokenizer", nullptr},
          {"post_processor", nullptr},
          {"decoder", {{"type", "Fuse"}}},
          {"model",
           {{"type", "BPE"},
            {"dropout", nullptr},
            {"unk_token", nullptr},
            {"continuing_subword_prefix", nullptr},
            {"end_of_word_suffix", nullptr},
            {"fuse_unk", false},
            {"byte_fallback", false},
            {"ignore_merges", false},
            {"vocab", vocab},
            {"merges", Json::array()}}}};
}

Json tokenizer_config_json() {
  Json decoder = Json::object();
  for (std::size_t i = 0; i < kSpecial.size(); ++i) {
    decoder[std::to_string(special_id(i))] = {{"content", kSpecial[i]}, {"lstrip", false},
                                              {"normalized", false},    {"rstrip", false},
                                              {"single_word", false},   {"special", true}};
  }
  return {{"tokenizer_class", "PreTrainedTokenizerFast"},
          {"added_tokens_decoder", decoder},
          {"eos_token", "<|end|>"},
          {"pad_token", "<|pad|>"},
          {"model_max_length", 64},
          {"clean_up_tokenization_spaces", false},
          {"chat_template", kChatTemplate}};
}

}  // namespace

int char_tokenizer_vocab_size() { return special_id(kSpecial.size()); }

void write_char_tokenizer(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create " + dir.string() + ": " + ec.message());
  write_file_atomically(dir / "tokenizer.json", tokenizer_json().dump(2) + "\n");
  write_file_atomically(dir / "tokenizer_config.json", tokenizer_config_json().dump(2) + "\n");
  const Json generation = {{"eos_token_id", special_id(3)}, {"pad_token_id", special_id(0)}};
  write_file_atomically(dir / "generation_config.json", generation.dump(2) + "\n");
}

}  // namespace verlpp::demo
