#include "verlpp/reward/gsm8k.h"

#include <vector>

namespace verlpp::reward {
namespace {

constexpr std::size_t kVerlClipChars = 300;  // gsm8k.py: _SOLUTION_CLIP_CHARS

bool is_number_char(char c) { return (c >= '0' && c <= '9') || c == '.' || c == ','; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Length of the match of (\-?[0-9\.\,]+) at `pos` (0 when there is none), as Python's re does it.
std::size_t number_match_at(std::string_view text, std::size_t pos) {
  std::size_t end = pos;
  if (end < text.size() && text[end] == '-') ++end;
  const std::size_t digits_start = end;
  while (end < text.size() && is_number_char(text[end])) ++end;
  return end == digits_start ? 0 : end - pos;
}

// All non-overlapping matches of `prefix` + (\-?[0-9\.\,]+), group 1 only, as re.findall.
std::vector<std::string_view> find_all_numbers(std::string_view text, std::string_view prefix) {
  std::vector<std::string_view> found;
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text.substr(pos, prefix.size()) == prefix) {
      const std::size_t len = number_match_at(text, pos + prefix.size());
      if (len > 0) {
        found.push_back(text.substr(pos + prefix.size(), len));
        pos += prefix.size() + len;
        continue;
      }
    }
    ++pos;
  }
  return found;
}

std::string remove_chars(std::string_view text, std::string_view chars) {
  std::string out;
  for (char c : text) {
    if (chars.find(c) == std::string_view::npos) out += c;
  }
  return out;
}

std::optional<std::string> verl_extract(std::string_view response, Gsm8kMethod method) {
  const std::string_view tail = last_code_points(response, kVerlClipChars);
  if (method == Gsm8kMethod::strict) {
    const auto found = find_all_numbers(tail, "#### ");
    if (found.empty()) return std::nullopt;
    return remove_chars(found.back(), ",$");
  }
  const auto found = find_all_numbers(tail, "");
  if (found.empty()) return std::nullopt;
  // Python's `for final_answer in reversed(answer): if final_answer not in ["", "."]: break`
  // leaves the first match when every match is invalid.
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    if (*it != "" && *it != ".") return std::string(*it);
  }
  return std::string(found.front());
}

// "1,080." -> "1080"; "72.50" -> "72.5"; "-3.0" -> "-3".
std::string normalize_number(std::string_view number) {
  std::string out = remove_chars(number, ",");
  while (!out.empty() && out.back() == '.') out.pop_back();
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

// A number token at `pos`: optional "-", then digits, "." and ","; it must contain a digit.
std::size_t number_token_at(std::string_view text, std::size_t pos) {
  const std::size_t len = number_match_at(text, pos);
  for (std::size_t i = pos; i < pos + len; ++i) {
    if (is_digit(text[i])) return len;
  }
  return 0;
}

// After "####": optional whitespace, then "$72", "-$72", "$-72" or "72". Returns the number with
// its sign, or nullopt.
std::optional<std::string> number_after_marker(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_space(text[pos])) ++pos;
  bool negative = false;
  if (pos + 1 < text.size() && text[pos] == '-' && text[pos + 1] == '$') {
    negative = true;
    ++pos;
  }
  if (pos < text.size() && text[pos] == '$') ++pos;
  const std::size_t len = number_token_at(text, pos);
  if (len == 0) return std::nullopt;
  return (negative ? "-" : "") + normalize_number(text.substr(pos, len));
}

std::optional<std::string> corrected_extract(std::string_view response, Gsm8kMethod method) {
  std::optional<std::string> last;
  if (method == Gsm8kMethod::strict) {
    for (std::size_t pos = response.find("####"); pos != std::string_view::npos;
         pos = response.find("####", pos + 4)) {
      std::size_t after = pos + 4;
      while (after < response.size() && response[after] == '#') ++after;
      // verl's format is "#### " + the answer: no whitespace after the marker, no answer.
      if (after < response.size() && is_space(response[after])) {
        if (auto number = number_after_marker(response, after)) last = std::move(number);
      }
      pos = after - 4;
    }
    return last;
  }
  std::size_t pos = 0;
  while (pos < response.size()) {
    const std::size_t len = number_token_at(response, pos);
    if (len == 0) {
      ++pos;
      continue;
    }
    last = normalize_number(response.substr(pos, len));
    pos += len;
  }
  return last;
}

}  // namespace

std::string_view last_code_points(std::string_view text, std::size_t count) {
  if (count == 0) return text.substr(text.size());
  std::size_t seen = 0;
  std::size_t pos = text.size();
  while (pos > 0) {
    --pos;
    const auto byte = static_cast<unsigned char>(text[pos]);
    if ((byte & 0xC0) != 0x80 && ++seen == count) break;  // a code point starts at pos
  }
  return text.substr(pos);
}

std::optional<std::string> gsm8k_extract(std::string_view response, Gsm8kMethod method,
                                         const RuleOptions& options) {
  return options.verl_compat ? verl_extract(response, method) : corrected_extract(response, method);
}

ScoreResult gsm8k_score(std::string_view response, std::string_view ground_truth,
                        const RuleOptions& options, Gsm8kMethod method, double format_score,
                        double score) {
  ScoreResult result;
  result.extracted = gsm8k_extract(response, method, options);
  if (!result.extracted) return result;
  const bool correct = options.verl_compat ? *result.extracted == ground_truth
                                           : *result.extracted == normalize_number(ground_truth);
  result.score = correct ? score : format_score;
  return result;
}

}  // namespace verlpp::reward
