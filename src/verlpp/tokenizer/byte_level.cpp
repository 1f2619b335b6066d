#include "verlpp/tokenizer/byte_level.h"

#include <unordered_map>

#include "verlpp/core/utf8.h"

namespace verlpp::tokenizer::byte_level {
namespace {

std::array<char32_t, 256> make_byte_to_char() {
  std::array<char32_t, 256> table{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    table[b] = printable ? static_cast<char32_t>(b) : next++;
  }
  return table;
}

const std::unordered_map<char32_t, unsigned char>& char_to_byte() {
  static const auto map = [] {
    std::unordered_map<char32_t, unsigned char> m;
    const auto& table = byte_to_char();
    for (int b = 0; b < 256; ++b) m[table[b]] = static_cast<unsigned char>(b);
    return m;
  }();
  return map;
}

}  // namespace

const std::array<char32_t, 256>& byte_to_char() {
  static const auto table = make_byte_to_char();
  return table;
}

std::string encode(std::string_view bytes) {
  const auto& table = byte_to_char();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) utf8::append(out, table[static_cast<unsigned char>(c)]);
  return out;
}

std::optional<std::string> decode(std::string_view token) {
  if (utf8::first_invalid(token)) return std::nullopt;
  const auto& map = char_to_byte();
  std::string out;
  out.reserve(token.size());
  std::size_t i = 0;
  while (i < token.size()) {
    const auto it = map.find(utf8::next(token, i));
    if (it == map.end()) return std::nullopt;
    out.push_back(static_cast<char>(it->second));
  }
  return out;
}

}  // namespace verlpp::tokenizer::byte_level
