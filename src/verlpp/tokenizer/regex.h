// A compiled PCRE2 regular expression in UTF + UCP mode (Unicode properties for \p{..}, \s, \w
// and case folding), JIT-compiled when the library supports it. Stands in for the Oniguruma
// regexes of HF tokenizers' Split pre-tokenizer (utils/onig.rs); the patterns real tokenizers use
// (\p{L}, \p{N}, \s, (?i:...), lookahead) mean the same in both.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace verlpp::tokenizer {

class Regex {
 public:
  // Throws verlpp::Error with PCRE2's message and offset if `pattern` does not compile.
  // `literal`: match the pattern text as is (tokenizer.json's {"String": ...} patterns).
  Regex(const std::string& pattern, bool literal, const std::string& where);
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  ~Regex();

  // Appends the [begin, end) byte ranges of all non-overlapping matches in `text` (valid UTF-8),
  // scanning left to right. An empty match advances by one character.
  void find_all(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& out) const;

 private:
  void* code_ = nullptr;  // pcre2_code_8*
  bool jit_ = false;
};

}  // namespace verlpp::tokenizer
