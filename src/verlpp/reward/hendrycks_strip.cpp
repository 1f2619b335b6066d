#include "verlpp/reward/hendrycks_strip.h"

#include "verlpp/reward/python_str.h"

namespace verlpp::reward {
namespace {

// Python raised inside the normalisation.
struct NormalizationFailed {};

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

std::string fix_a_slash_b(const std::string& text) {
  const auto parts = split(text, "/");
  if (parts.size() != 2) return text;
  const auto a = python_int(parts[0]);
  const auto b = python_int(parts[1]);
  if (!a || !b || text != *a + "/" + *b) return text;
  return "\\frac{" + *a + "}{" + *b + "}";
}

std::string strip(std::string text, StripVariant variant) {
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
  if (variant == StripVariant::kVerlMath) text = replace_all(text, "\\\\%", "");
  text = replace_all(text, "\\%", "");
  if (variant == StripVariant::kPrm800k) text = replace_all(text, "%", "");
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

std::optional<std::string> hendrycks_strip(std::string_view text, StripVariant variant) {
  try {
    return strip(std::string(text), variant);
  } catch (const NormalizationFailed&) {
    return std::nullopt;
  }
}

}  // namespace verlpp::reward
