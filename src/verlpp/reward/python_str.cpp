#include "verlpp/reward/python_str.h"

#include <cmath>
#include <cstdlib>

namespace verlpp::reward {
namespace {

bool is_python_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The non-ASCII code points Python's str.isspace() accepts: U+0085, U+00A0, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 (UTF-8 encoded).
bool is_unicode_space(std::string_view cp) {
  static constexpr std::string_view kSpaces[] = {"\u0085", "\u00a0", "\u1680", "\u2000", "\u2001",
                                                 "\u2002", "\u2003", "\u2004", "\u2005", "\u2006",
                                                 "\u2007", "\u2008", "\u2009", "\u200a", "\u2028",
                                                 "\u2029", "\u202f", "\u205f", "\u3000"};
  for (std::string_view space : kSpaces) {
    if (cp == space) return true;
  }
  return false;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Removes the underscores of a digit run; false when one is not between two digits.
bool drop_digit_underscores(std::string_view text, std::string& out) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '_') {
      out += text[i];
      continue;
    }
    if (i == 0 || i + 1 == text.size() || !is_digit(text[i - 1]) || !is_digit(text[i + 1])) {
      return false;
    }
  }
  return true;
}

// Python's float() grammar for finite decimals: digits with an optional "." and exponent.
bool is_decimal_literal(std::string_view text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t mantissa_digits = 0;
  while (i < text.size() && is_digit(text[i])) ++i, ++mantissa_digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    while (i < text.size() && is_digit(text[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == text.size();
}

}  // namespace

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  std::size_t pos = text.find(from);
  if (pos == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  std::size_t start = 0;
  for (; pos != std::string::npos; pos = text.find(from, start)) {
    out.append(text, start, pos - start);
    out.append(to);
    start = pos + from.size();
  }
  out.append(text, start, std::string::npos);
  return out;
}

std::string lower_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view strip_python_space(std::string_view text) {
  const auto leading = [](std::string_view s) -> std::size_t {
    if (s.empty()) return 0;
    const auto b0 = static_cast<unsigned char>(s[0]);
    if (b0 < 0x80) return is_python_space(s[0]) || (b0 >= 0x1C && b0 <= 0x1F) ? 1 : 0;
    const std::size_t n = char_len(s, 0);
    return is_unicode_space(s.substr(0, n)) ? n : 0;
  };
  while (const std::size_t n = leading(text)) text.remove_prefix(n);
  while (!text.empty()) {
    std::size_t start = text.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    const std::string_view last = text.substr(start);
    const auto b0 = static_cast<unsigned char>(last[0]);
    const bool space = last.size() == 1 ? is_python_space(last[0]) || (b0 >= 0x1C && b0 <= 0x1F)
                                        : is_unicode_space(last);
    if (!space) break;
    text.remove_suffix(last.size());
  }
  return text;
}

std::vector<std::string> split(std::string_view text, std::string_view sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t pos = text.find(sep); pos != std::string_view::npos;
       pos = text.find(sep, start)) {
    parts.emplace_back(text.substr(start, pos - start));
    start = pos + sep.size();
  }
  parts.emplace_back(text.substr(start));
  return parts;
}

std::size_t char_len(std::string_view text, std::size_t pos) {
  std::size_t len = 1;
  while (pos + len < text.size() && (static_cast<unsigned char>(text[pos + len]) & 0xC0) == 0x80) {
    ++len;
  }
  return len;
}

std::size_t code_point_count(std::string_view text) {
  std::size_t count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return count;
}

std::optional<std::string> python_int(std::string_view text) {
  text = strip_python_space(text);
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::string digits;
  if (!drop_digit_underscores(text, digits) || digits.empty()) return std::nullopt;
  for (char c : digits) {
    if (!is_digit(c)) return std::nullopt;
  }
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  return (negative ? "-" : "") + digits.substr(first);
}

std::optional<double> python_float(std::string_view text) {
  text = strip_python_space(text);
  std::string cleaned;
  if (!drop_digit_underscores(text, cleaned)) return std::nullopt;
  std::string_view body = cleaned;
  const bool negative = !body.empty() && body[0] == '-';
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
  const std::string word = lower_ascii(body);
  if (word == "inf" || word == "infinity") return negative ? -HUGE_VAL : HUGE_VAL;
  if (word == "nan") return std::nan("");
  if (!is_decimal_literal(cleaned)) return std::nullopt;
  return std::strtod(cleaned.c_str(), nullptr);
}

}  // namespace verlpp::reward
