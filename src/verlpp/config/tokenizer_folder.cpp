#include "verlpp/config/tokenizer_folder.h"

#include <fmt/format.h>

#include <filesystem>

#include "verlpp/config/home_path.h"
#include "verlpp/config/model_folder.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::config {

namespace {

// A folder the run loads a model from (as opposed to a stand-in of config.json only).
bool holds_weights(const std::string& dir) {
  const std::filesystem::path folder(dir);
  return std::filesystem::exists(folder / "model.safetensors") ||
         std::filesystem::exists(folder / "model.safetensors.index.json");
}

}  // namespace

void check_tokenizer_folder(const std::string& key, const std::string& path,
                            const std::vector<VocabReader>& readers, Findings& out) {
  const std::string dir = expand_home(path);
  if (!hf_folder_error(dir).empty()) return;
  const std::string tokenizer_json = (std::filesystem::path(dir) / "tokenizer.json").string();
  if (nothing_at(tokenizer_json)) {
    if (holds_weights(dir)) {
      add_error(out, key, dir + " has no tokenizer.json (the run loads the tokenizer from there)",
                key.ends_with(".tokenizer_path")
                    ? "point " + key + " at the model's tokenizer folder"
                    : "set " + key.substr(0, key.size() - 4) +
                          "tokenizer_path to the model's tokenizer folder");
    } else {
      add_notice(out, key,
                 tokenizer_json +
                     " is not on this machine: the tokenizer is not checked (the run "
                     "loads it from there)");
    }
    return;
  }
  std::int32_t vocab_size = 0;
  try {
    vocab_size = tokenizer::Tokenizer::from_directory(dir).vocab_size();
  } catch (const Error& e) {
    add_error(out, key, e.what(), "fix or replace the tokenizer files of " + dir);
    return;
  }
  for (const VocabReader& model : readers) {
    if (vocab_size <= model.vocab_size) continue;
    add_error(out, key,
              fmt::format("the tokenizer of {} has ids up to {}, but {}'s config.json vocab_size "
                          "is {}: the tokenizer and the model do not match",
                          dir, vocab_size - 1, model.name, model.vocab_size),
              fmt::format("use {}'s own tokenizer, or a model whose vocab_size is at least {}",
                          model.name, vocab_size));
  }
}

}  // namespace verlpp::config
