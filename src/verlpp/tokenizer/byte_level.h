// GPT-2's byte-level alphabet (HF pre_tokenizers/byte_level.rs `bytes_char`): every byte is
// written as one printable Unicode character, so that BPE vocabularies are plain strings.
// Printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') map to themselves; the other 68 bytes map
// to U+0100.. in byte order (space -> 'Ġ' U+0120, '\n' -> 'Ċ' U+010A).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace verlpp::tokenizer::byte_level {

// The character (a code point) that stands for each byte.
const std::array<char32_t, 256>& byte_to_char();

// The UTF-8 string of the characters standing for `bytes`.
std::string encode(std::string_view bytes);

// The bytes a byte-level token string stands for, or nullopt if some character of it is not in
// the alphabet (HF's ByteLevel decoder then keeps the token's own bytes).
std::optional<std::string> decode(std::string_view token);

}  // namespace verlpp::tokenizer::byte_level
