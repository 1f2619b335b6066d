#include "verlpp/config/tokenizer_folder.h"

#include <fmt/format.h>

#include <filesystem>

#include "verlpp/config/home_path.h"
#include "verlpp/config/model_folder.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::config {

void check_tokenizer_folder(const std::string& key, const std::string& path,
                            std::optional<std::int64_t> model_vocab_size, Findings& out) {
  const std::string dir = expand_home(path);
  if (!hf_folder_error(dir).empty()) return;
  const std::string tokenizer_json = (std::filesystem::path(dir) / "tokenizer.json").string();
  if (nothing_at(tokenizer_json)) {
    add_notice(out, key,
               tokenizer_json +
                   " is not on this machine: the tokenizer is not checked (the run "
                   "loads it from there)");
    return;
  }
  std::int32_t vocab_size = 0;
  try {
    vocab_size = tokenizer::Tokenizer::from_directory(dir).vocab_size();
  } catch (const Error& e) {
    add_error(out, key, e.what(), "fix or replace the tokenizer files of " + dir);
    return;
  }
  if (model_vocab_size && vocab_size > *model_vocab_size) {
    add_error(out, key,
              fmt::format("the tokenizer of {} has ids up to {}, but the model's config.json "
                          "vocab_size is {}: the tokenizer and the model do not match",
                          dir, vocab_size - 1, *model_vocab_size),
              "point the key at the model's own tokenizer");
  }
}

}  // namespace verlpp::config
