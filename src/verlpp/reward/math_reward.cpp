#include "verlpp/reward/math_reward.h"

#include <vector>

namespace verlpp::reward {
namespace {

// Python raised inside strip_string: is_equiv falls back to raw equality.
struct NormalizationFailed {};

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  std::size_t pos = 0;
  while ((pos = text.find(from, pos)) != std::string::npos) {
    text.replace(pos, from.size(), to);
    pos += to.size();
  }
  return text;
}

// Python's str.split(sep) (sep non-empty).
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

// Byte length of the UTF-8 code point starting at text[pos].
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

std::string remove_right_units(const std::string& text) {
  if (!contains(text, "\\text{ ")) return text;
  const auto parts = split(text, "\\text{ ");
  if (parts.size() != 2) throw NormalizationFailed{};  // verl: assert len(splits) == 2
  return parts[0];
}

std::string fix_sqrt(const std::string& text) {
  if (!contains(text, "\\sqrt")) return text;
  const auto parts = split(text, "\\sqrt");
  std::string out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.empty()) throw NormalizationFailed{};  // verl: split[0] raises IndexError
    if (part[0] != '{') {
      const std::size_t a = char_len(part, 0);
      out += "\\sqrt{" + part.substr(0, a) + "}" + part.substr(a);
    } else {
      out += "\\sqrt" + part;
    }
  }
  return out;
}

std::string fix_fracs(const std::string& text) {
  const auto parts = split(text, "\\frac");
  std::string out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    out += "\\frac";
    if (part.empty()) throw NormalizationFailed{};  // verl: substr[0] raises IndexError
    if (part[0] == '{') {
      out += part;
      continue;
    }
    if (code_point_count(part) < 2) return text;
    const std::size_t a_len = char_len(part, 0);
    const std::size_t b_len = char_len(part, a_len);
    const std::string a = part.substr(0, a_len);
    const std::string b = part.substr(a_len, b_len);
    const std::string post = part.substr(a_len + b_len);
    if (b != "{") {
      out += "{" + a + "}{" + b + "}" + post;
    } else {
      out += "{" + a + "}" + b + post;
    }
  }
  return out;
}

// str(int(text)) when Python's int() accepts `text` (surrounding whitespace, a sign, decimal
// digits with single underscores between them); nullopt otherwise.
std::optional<std::string> python_int(std::string_view text) {
  const auto ws = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!text.empty() && ws(text.front())) text.remove_prefix(1);
  while (!text.empty() && ws(text.back())) text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::string digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c != '_' || i == 0 || i + 1 == text.size() || text[i + 1] == '_') {
      return std::nullopt;
    }
  }
  if (digits.empty()) return std::nullopt;
  const std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  return (negative ? "-" : "") + digits.substr(first);
}

std::string fix_a_slash_b(const std::string& text) {
  const auto parts = split(text, "/");
  if (parts.size() != 2) return text;
  const auto a = python_int(parts[0]);
  const auto b = python_int(parts[1]);
  if (!a || !b || text != *a + "/" + *b) return text;
  return "\\frac{" + *a + "}{" + *b + "}";
}

std::string strip(std::string text) {
  text = replace_all(text, "\n", "");
  text = replace_all(text, "\\!", "");
  text = replace_all(text, "\\\\", "\\");
  text = replace_all(text, "tfrac", "frac");
  text = replace_all(text, "dfrac", "frac");
  text = replace_all(text, "\\left", "");
  text = replace_all(text, "\\right", "");
  text = replace_all(text, "^{\\circ}", "");
  text = replace_all(text, "^\\circ", "");
  text = replace_all(text, "\\$", "");
  text = remove_right_units(text);
  text = replace_all(text, "\\\\%", "");
  text = replace_all(text, "\\%", "");
  text = replace_all(text, " .", " 0.");
  text = replace_all(text, "{.", "{0.");
  if (text.empty()) return text;
  if (text[0] == '.') text = "0" + text;
  const auto sides = split(text, "=");
  if (sides.size() == 2 && code_point_count(sides[0]) <= 2) text = sides[1];
  text = fix_sqrt(text);
  text = replace_all(text, " ", "");
  text = fix_fracs(text);
  if (text == "0.5") text = "\\frac{1}{2}";
  return fix_a_slash_b(text);
}

}  // namespace

std::optional<std::string> last_boxed_only_string(std::string_view text) {
  if (contains(text, "\\boxed ")) {
    const auto after = split(text, "\\boxed ").back();
    return "\\boxed " + split(after, "$")[0];
  }
  std::size_t start = text.rfind("\\boxed");
  if (start == std::string_view::npos) start = text.rfind("\\fbox");
  if (start == std::string_view::npos) return std::nullopt;
  int open = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] == '{') ++open;
    if (text[i] == '}' && --open == 0) return std::string(text.substr(start, i + 1 - start));
  }
  return std::nullopt;
}

std::optional<std::string> remove_boxed(std::string_view boxed) {
  if (contains(boxed, "\\boxed ")) {
    if (!boxed.starts_with("\\boxed ")) return std::nullopt;
    return std::string(boxed.substr(7));
  }
  if (!boxed.starts_with("\\boxed{") || !boxed.ends_with("}")) return std::nullopt;
  return std::string(boxed.substr(7, boxed.size() - 8));
}

std::optional<std::string> strip_string(std::string_view text) {
  try {
    return strip(std::string(text));
  } catch (const NormalizationFailed&) {
    return std::nullopt;
  }
}

bool is_equiv(std::string_view a, std::string_view b) {
  const auto sa = strip_string(a);
  const auto sb = strip_string(b);
  if (!sa || !sb) return a == b;
  return *sa == *sb;
}

ScoreResult math_score(std::string_view response, std::string_view ground_truth) {
  ScoreResult result;
  const auto boxed = last_boxed_only_string(response);
  if (!boxed) return result;
  result.extracted = remove_boxed(*boxed);
  if (result.extracted && is_equiv(*result.extracted, ground_truth)) result.score = 1.0;
  return result;
}

}  // namespace verlpp::reward
