// Added tokens (tokenizer.json "added_tokens"): found in the input before normalisation and
// pre-tokenisation, as HF tokenizers' added_vocabulary.rs does. Matching is leftmost-longest over
// the raw text for tokens with normalized=false and over the normalised text for the others;
// lstrip/rstrip make a match swallow adjacent whitespace; single_word rejects matches touching a
// word character.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::tokenizer {

class AddedVocabulary {
 public:
  // A piece of text: either an added token (id >= 0) or text for the model (id == -1).
  struct Piece {
    std::size_t begin, end;
    std::int32_t id;
  };

  AddedVocabulary() = default;
  explicit AddedVocabulary(std::vector<AddedToken> tokens);

  // Cuts `text` into pieces covering it, for the tokens with the given `normalized` flag.
  void split(std::string_view text, bool normalized, std::vector<Piece>& out) const;

  bool has_normalized() const { return has_normalized_; }
  const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // Tokens by first byte, longest first, so the first full match at a position is the longest.
  std::vector<std::vector<std::size_t>> by_first_byte_ = std::vector<std::vector<std::size_t>>(256);
  std::vector<AddedToken> tokens_;
  bool has_normalized_ = false;
};

}  // namespace verlpp::tokenizer
