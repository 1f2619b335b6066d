// Shared test helpers: the Qwen3 tokenizer (loaded once) and the JSONL fixtures made by
// tools/make_tokenizer_fixture.py with HF tokenizers/transformers.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::tokenizer::testing {

inline std::filesystem::path fixture_dir() {
  return std::filesystem::path(VERLPP_SOURCE_DIR) / "tests/fixtures/tokenizers";
}

inline const Tokenizer& qwen3() {
  static const Tokenizer tokenizer = Tokenizer::from_directory(fixture_dir() / "qwen3");
  return tokenizer;
}

// The rows of a JSONL fixture; an empty result means the fixture is missing (tests then fail).
inline std::vector<OrderedJson> read_jsonl(const std::filesystem::path& path) {
  std::vector<OrderedJson> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) rows.push_back(OrderedJson::parse(line));
  }
  return rows;
}

}  // namespace verlpp::tokenizer::testing
