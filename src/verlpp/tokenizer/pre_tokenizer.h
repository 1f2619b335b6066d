// tokenizer.json's "pre_tokenizer": how normalised text is cut into words before BPE. Supported,
// as HF pre_tokenizers/ does them: Split (regex or string pattern, behavior "Isolated": every
// match and every gap between matches is a word), ByteLevel (words become byte sequences; with
// use_regex it first splits with GPT-2's regex), and Sequence of these. null: the whole text is
// one word.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verlpp/tokenizer/regex.h"

namespace verlpp::tokenizer {

class PreTokenizer {
 public:
  // Throws verlpp::Error naming the unsupported type/option.
  PreTokenizer(const nlohmann::json& spec, const std::string& where);

  // Byte ranges [begin, end) of the words of `text`, in order, covering all of it.
  void split(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& words) const;

  // Whether a ByteLevel step is present (BPE then works on bytes).
  bool byte_level() const { return byte_level_; }

 private:
  void add(const nlohmann::json& spec, const std::string& where);
  std::vector<std::unique_ptr<Regex>> splits_;  // applied in order, each to every word so far
  bool byte_level_ = false;
};

}  // namespace verlpp::tokenizer
