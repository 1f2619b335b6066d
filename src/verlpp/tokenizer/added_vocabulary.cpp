#include "verlpp/tokenizer/added_vocabulary.h"

#include <utf8proc.h>

#include <algorithm>

#include "verlpp/core/utf8.h"

namespace verlpp::tokenizer {
namespace {

// Rust's char::is_whitespace: the White_Space property.
bool is_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

// HF's is_word_character: alphanumeric (Unicode letters and numbers) or '_'.
bool is_word_character(char32_t c) {
  if (c == '_') return true;
  const auto category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return (category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_LO) ||
         (category >= UTF8PROC_CATEGORY_ND && category <= UTF8PROC_CATEGORY_NO);
}

// The code point that ends just before byte `at` (at > 0) and where it starts.
char32_t previous_char(std::string_view text, std::size_t at, std::size_t& start) {
  start = at - 1;
  while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
  std::size_t i = start;
  return utf8::next(text, i);
}

}  // namespace

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
  for (std::size_t k = 0; k < tokens_.size(); ++k) {
    if (tokens_[k].content.empty()) continue;
    by_first_byte_[static_cast<unsigned char>(tokens_[k].content[0])].push_back(k);
    has_normalized_ = has_normalized_ || tokens_[k].normalized;
  }
  for (auto& bucket : by_first_byte_) {
    std::stable_sort(bucket.begin(), bucket.end(), [&](std::size_t a, std::size_t b) {
      return tokens_[a].content.size() > tokens_[b].content.size();
    });
  }
}

void AddedVocabulary::split(std::string_view text, bool normalized, std::vector<Piece>& out) const {
  std::size_t emitted = 0;  // text before this is already in `out`
  std::size_t i = 0;
  while (i < text.size()) {
    const AddedToken* found = nullptr;
    for (const std::size_t k : by_first_byte_[static_cast<unsigned char>(text[i])]) {
      const AddedToken& token = tokens_[k];
      if (token.normalized == normalized && text.substr(i, token.content.size()) == token.content) {
        found = &token;
        break;
      }
    }
    if (found == nullptr) {
      ++i;
      continue;
    }
    std::size_t begin = i, end = i + found->content.size();
    if (found->single_word) {
      std::size_t unused = 0, after = end;
      const bool left_ok = begin == 0 || !is_word_character(previous_char(text, begin, unused));
      const bool right_ok = end == text.size() || !is_word_character(utf8::next(text, after));
      if (!left_ok || !right_ok) {
        i = end;
        continue;
      }
    }
    if (found->lstrip) {
      std::size_t start = begin;
      while (begin > emitted && is_whitespace(previous_char(text, begin, start))) begin = start;
    }
    if (found->rstrip) {
      std::size_t next = end;
      while (end < text.size() && is_whitespace(utf8::next(text, next))) end = next;
    }
    if (begin > emitted) out.push_back({emitted, begin, -1});
    out.push_back({begin, end, found->id});
    emitted = i = end;
  }
  if (emitted < text.size()) out.push_back({emitted, text.size(), -1});
}

}  // namespace verlpp::tokenizer
