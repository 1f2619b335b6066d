#include "verlpp/core/utf8.h"

#include "verlpp/core/error.h"

namespace verlpp::utf8 {
namespace {

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The number of bytes a sequence led by `lead` needs (0 for an invalid lead byte) and the valid
// range of its second byte (which rules out overlong forms, surrogates and > U+10FFFF).
struct Lead {
  std::size_t length;
  unsigned char second_min, second_max;
};

Lead classify(unsigned char lead) {
  if (lead < 0x80) return {1, 0, 0};
  if (lead < 0xC2) return {0, 0, 0};
  if (lead < 0xE0) return {2, 0x80, 0xBF};
  if (lead == 0xE0) return {3, 0xA0, 0xBF};
  if (lead == 0xED) return {3, 0x80, 0x9F};
  if (lead < 0xF0) return {3, 0x80, 0xBF};
  if (lead == 0xF0) return {4, 0x90, 0xBF};
  if (lead < 0xF4) return {4, 0x80, 0xBF};
  if (lead == 0xF4) return {4, 0x80, 0x8F};
  return {0, 0, 0};
}

// How many bytes from s[i] form a valid prefix of a sequence (1..length), and the full length.
std::size_t valid_prefix(std::string_view s, std::size_t i, const Lead& lead) {
  std::size_t n = 1;
  if (lead.length >= 2 && i + 1 < s.size()) {
    const auto c = static_cast<unsigned char>(s[i + 1]);
    if (c < lead.second_min || c > lead.second_max) return n;
    ++n;
    while (n < lead.length && i + n < s.size() &&
           is_continuation(static_cast<unsigned char>(s[i + n])))
      ++n;
  }
  return n;
}

}  // namespace

std::size_t sequence_length(std::string_view s, std::size_t i) {
  const Lead lead = classify(static_cast<unsigned char>(s[i]));
  if (lead.length == 0) return 0;
  if (lead.length == 1) return 1;
  return valid_prefix(s, i, lead) == lead.length ? lead.length : 0;
}

std::optional<std::size_t> first_invalid(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

void require_valid(std::string_view s, std::string_view what) {
  if (const auto bad = first_invalid(s)) {
    throw Error(std::string(what) + ": invalid UTF-8 at byte " + std::to_string(*bad) +
                " (byte value " + std::to_string(static_cast<unsigned char>(s[*bad])) + ")");
  }
}

char32_t next(std::string_view s, std::size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  const std::size_t n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  char32_t cp = c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += n;
  return cp;
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t i = 0;
  while (i < bytes.size()) {
    const Lead lead = classify(static_cast<unsigned char>(bytes[i]));
    if (lead.length == 1) {
      out.push_back(bytes[i++]);
      continue;
    }
    const std::size_t n = lead.length == 0 ? 1 : valid_prefix(bytes, i, lead);
    if (n == lead.length) {
      out.append(bytes.substr(i, n));
    } else {
      out.append("\xEF\xBF\xBD");
    }
    i += n;
  }
  return out;
}

std::size_t complete_prefix(std::string_view bytes) {
  // A character is at most 4 bytes: only the last 3 can be an unfinished sequence.
  const std::size_t from = bytes.size() > 3 ? bytes.size() - 3 : 0;
  for (std::size_t i = from; i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (is_continuation(c)) continue;
    const Lead lead = classify(c);
    if (lead.length <= 1) continue;
    const std::size_t n = valid_prefix(bytes, i, lead);
    if (i + n == bytes.size() && n < lead.length) return i;
  }
  return bytes.size();
}

std::size_t length(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) n += !is_continuation(static_cast<unsigned char>(c));
  return n;
}

std::string excerpt(std::string_view s, std::size_t max_chars) {
  const std::string text = lossy(s);
  std::size_t i = 0;
  for (std::size_t chars = 0; i < text.size() && chars < max_chars; ++chars) {
    i += sequence_length(text, i);
  }
  if (i >= text.size()) return text;
  return text.substr(0, i) + "… (" + std::to_string(s.size()) + " bytes)";
}

}  // namespace verlpp::utf8
