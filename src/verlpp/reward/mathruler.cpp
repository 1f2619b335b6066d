#include "verlpp/reward/mathruler.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <optional>
#include <regex>
#include <set>
#include <vector>

#include "verlpp/reward/hendrycks_strip.h"
#include "verlpp/reward/latex_to_text.h"
#include "verlpp/reward/python_str.h"
#include "verlpp/reward/sympy_equal.h"

namespace verlpp::reward {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr std::array<std::string_view, 16> kUnits = {
    "degree", "cm",   "centimeter", "meter", "mile", "second", "minute", "hour",
    "day",    "week", "month",      "year",  "foot", "feet",   "inch",   "yard"};

// re.search(r"^\\text\{(?P<text>.+?)\}$", s): the shortest content (no newline) whose closing
// brace ends the string or precedes its final newline.
std::optional<std::string> enclosing_text(std::string_view s) {
  constexpr std::string_view kOpen = "\\text{";
  if (!s.starts_with(kOpen)) return std::nullopt;
  for (std::size_t i = kOpen.size() + 1; i < s.size(); ++i) {
    if (s[i - 1] == '\n') return std::nullopt;
    const bool at_end = i + 1 == s.size() || (i + 2 == s.size() && s[i + 1] == '\n');
    if (s[i] == '}' && at_end) return std::string(s.substr(kOpen.size(), i - kOpen.size()));
  }
  return std::nullopt;
}

// str(int(x)) of a float holding an integer value (exact digits, "0" for -0.0).
std::string integer_string(double x) {
  if (x == 0.0) return "0";
  return fmt::format("{:.0f}", x);
}

// _is_int(float(s)) for a string float() accepts: within 1e-7 of round(x) (false for inf, nan).
bool float_is_int(double x) { return std::isfinite(x) && std::fabs(x - std::nearbyint(x)) <= 1e-7; }

std::string strip_properly_formatted_commas(std::string expr) {
  static const std::regex comma(R"((\d)(,)(\d\d\d)($|\D))");
  for (;;) {
    std::string next = std::regex_replace(expr, comma, "$1$3$4");
    if (next == expr) return next;
    expr = std::move(next);
  }
}

bool str_is_int(const std::string& x) {
  const auto value = python_float(strip_properly_formatted_commas(x));
  return value && float_is_int(*value);
}

// s = D x?: D a run of digits (holding a nonzero one when `nonzero`), x one code point that is
// not a newline (the "[0-9]+.?" and "0*[1-9][0-9]*.?" of is_frac).
bool digits_then_optional_char(std::string_view s, bool nonzero) {
  const auto ok = [&](std::string_view d) {
    if (d.empty()) return false;
    for (char ch : d) {
      if (!is_digit(ch)) return false;
    }
    return !nonzero || d.find_first_not_of('0') != std::string_view::npos;
  };
  if (ok(s)) return true;
  if (s.empty()) return false;
  std::size_t last = s.size() - 1;
  while (last > 0 && (static_cast<unsigned char>(s[last]) & 0xC0) == 0x80) --last;
  return s[last] != '\n' && ok(s.substr(0, last));
}

// re.search(r"^-?[0-9]+.?/0*[1-9][0-9]*.?$", expr) by hand, trying every slash ("." may itself be
// a slash; "$" also matches before a final newline). std::regex recurses once per character,
// which long answers would turn into a stack overflow.
bool is_frac(const std::string& expr) {
  const std::string_view e = expr;
  for (std::size_t p = e.find('/'); p != std::string_view::npos; p = e.find('/', p + 1)) {
    std::string_view left = e.substr(0, p), right = e.substr(p + 1);
    if (!left.empty() && left[0] == '-') left.remove_prefix(1);
    if (!digits_then_optional_char(left, false)) continue;
    if (digits_then_optional_char(right, true)) return true;
    if (!right.empty() && right.back() == '\n') {
      right.remove_suffix(1);
      if (digits_then_optional_char(right, true)) return true;
    }
  }
  return false;
}

// re.sub(r"- *", "-", s): spaces after every minus sign removed.
std::string join_minus(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += s[i];
    if (s[i] == '-') {
      while (i + 1 < s.size() && s[i + 1] == ' ') ++i;
    }
  }
  return out;
}

// re.sub(r"([0-9]) +([0-9])", r"\1+\2", s): a digit, spaces and a digit become digit+digit,
// scanning left to right without overlaps (the second digit is consumed by its match).
std::string join_mixed_numbers(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (is_digit(s[i]) && i + 1 < s.size() && s[i + 1] == ' ') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] == ' ') ++j;
      if (j < s.size() && is_digit(s[j])) {
        out += s[i];
        out += '+';
        out += s[j];
        i = j + 1;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

// re.sub(r",\\! *", "", s): every ",\!" with the spaces after it removed.
std::string drop_thin_space_commas(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, ",\\!") == 0) {
      i += 3;
      while (i < s.size() && s[i] == ' ') ++i;
      continue;
    }
    out += s[i++];
  }
  return out;
}

// _parse_latex; on an expression pylatexenc would fail on, the expression unchanged (the grader
// catches the exception).
std::string parse_latex(const std::string& original) {
  std::string expr = replace_all(original, "\\tfrac", "\\frac");
  expr = replace_all(expr, "\\dfrac", "\\frac");
  expr = replace_all(expr, "\\frac", " \\frac");
  const auto text = latex_to_text(expr);
  if (!text) return original;
  expr = *text;
  for (const auto& [from, to] : std::array<std::pair<std::string_view, std::string_view>, 6>{
           {{"√", "sqrt"}, {"π", "pi"}, {"∞", "inf"}, {"∪", "U"}, {"·", "*"}, {"×", "*"}}}) {
    expr = replace_all(expr, from, to);
  }
  return std::string(strip_python_space(expr));
}

// re.sub(rf"{unit}(es)?(s)? *(\^[0-9]+)?", "", s) for one unit, by hand (std::regex recursed once
// per space or digit and long runs overflowed the stack).
std::string drop_unit(const std::string& s, std::string_view unit) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s.compare(i, unit.size(), unit) != 0) {
      out += s[i++];
      continue;
    }
    std::size_t j = i + unit.size();
    if (s.compare(j, 2, "es") == 0) j += 2;
    if (j < s.size() && s[j] == 's') ++j;
    while (j < s.size() && s[j] == ' ') ++j;
    if (j + 1 < s.size() && s[j] == '^' && is_digit(s[j + 1])) {
      ++j;
      while (j < s.size() && is_digit(s[j])) ++j;
    }
    i = j;
  }
  return out;
}

// re.sub(r"\^ *\\circ", "", s) by hand.
std::string drop_circ(const std::string& s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '^') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] == ' ') ++j;
      if (s.compare(j, 5, "\\circ") == 0) {
        i = j + 5;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::string drop_units(std::string expr) {
  for (const auto unit : kUnits) expr = drop_unit(expr, unit);
  return drop_circ(expr);
}

// Python's str.isalpha on one code point, for ASCII, Latin-1/Latin Extended, Greek and Cyrillic
// letters (other scripts count as not alphabetic).
bool is_alpha(std::string_view cp) {
  if (cp.size() == 1) return (cp[0] >= 'a' && cp[0] <= 'z') || (cp[0] >= 'A' && cp[0] <= 'Z');
  if (cp == "×" || cp == "÷") return false;
  const auto b0 = static_cast<unsigned char>(cp[0]);
  const auto b1 = static_cast<unsigned char>(cp[1]);
  const unsigned value = ((b0 & 0x1Fu) << 6) | (b1 & 0x3Fu);
  return cp.size() == 2 &&
         ((value >= 0xC0 && value <= 0x24F) || (value >= 0x370 && value <= 0x52F));
}

std::size_t count_unknown_letters(std::string expr) {
  expr = replace_all(expr, "sqrt", "");
  expr = replace_all(expr, "frac", "");
  std::set<std::string> letters;
  for (std::size_t i = 0; i < expr.size();) {
    const std::size_t len = char_len(expr, i);
    const std::string cp = expr.substr(i, len);
    if (is_alpha(cp)) letters.insert(cp);
    i += len;
  }
  return letters.size();
}

// re.search(r"\^[0-9]+\^", e) or re.search(r"\^[0-9][0-9]+", e): a power with two or more
// digits, or a power of a power.
bool has_bad_power(const std::string& e) {
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e[i] != '^') continue;
    std::size_t j = i + 1;
    while (j < e.size() && is_digit(e[j])) ++j;
    const std::size_t digits = j - i - 1;
    if (digits >= 2 || (digits == 1 && j < e.size() && e[j] == '^')) return true;
  }
  return false;
}

bool should_allow_eval(const std::string& expr) {
  if (count_unknown_letters(expr) > 2) return false;
  if (contains(expr, "^{") || contains(expr, "^(")) return false;
  return !has_bad_power(expr);
}

bool are_equal_under_sympy(const std::string& ground_truth, const std::string& given) {
  const std::string expr = "(" + ground_truth + ")-(" + given + ")";
  return should_allow_eval(expr) && sympy_equal(ground_truth, given);
}

bool is_tuple_char(char c) { return c == '(' || c == ')' || c == '[' || c == ']'; }

std::vector<std::string> split_tuple(std::string expr) {
  expr = strip_properly_formatted_commas(std::move(expr));
  if (expr.empty()) return {};
  const std::string inner = expr.size() >= 2 ? expr.substr(1, expr.size() - 2) : "";
  bool inner_has_tuple_char = false;
  for (char c : inner) inner_has_tuple_char = inner_has_tuple_char || is_tuple_char(c);
  if (code_point_count(expr) > 2 && is_tuple_char(expr.front()) && is_tuple_char(expr.back()) &&
      !inner_has_tuple_char) {
    std::vector<std::string> elems;
    for (const auto& elem : split(inner, ",")) elems.emplace_back(strip_python_space(elem));
    return elems;
  }
  return {expr};
}

std::string first_code_point(const std::string& s) { return s.substr(0, char_len(s, 0)); }

std::string last_code_point(const std::string& s) {
  std::size_t start = s.size() - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  return s.substr(start);
}

bool elements_equal(const std::string& ground_truth, const std::string& given) {
  if (is_frac(ground_truth) && is_frac(given)) return ground_truth == given;
  if (str_is_int(ground_truth) != str_is_int(given)) return false;
  return are_equal_under_sympy(ground_truth, given);
}

}  // namespace

std::string extract_boxed_content(std::string_view text) {
  constexpr std::string_view kBoxed = "\\boxed{";
  const std::size_t start = text.rfind(kBoxed);
  if (start == std::string_view::npos) return "None";
  const std::string_view content = text.substr(start + kBoxed.size());
  int depth = 0;
  for (std::size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '{') ++depth;
    if (content[i] == '}') --depth;
    if (depth == -1) return std::string(strip_python_space(content.substr(0, i)));
  }
  return "None";
}

std::string normalize_answer(std::string_view answer) {
  std::string stripped(strip_python_space(answer));
  if (const auto text = enclosing_text(stripped)) stripped = strip_python_space(*text);
  return hendrycks_strip(stripped, StripVariant::kPrm800k).value_or(stripped);
}

std::string normalize(std::string_view input) {
  std::string expr(input);
  if (const auto text = enclosing_text(expr)) expr = *text;
  expr = replace_all(expr, "\\%", "%");
  expr = replace_all(expr, "\\$", "$");
  expr = replace_all(expr, "$", "");
  expr = replace_all(expr, "%", "");
  expr = replace_all(expr, " or ", " , ");
  expr = replace_all(expr, " and ", " , ");
  expr = replace_all(expr, "million", "*10^6");
  expr = replace_all(expr, "billion", "*10^9");
  expr = replace_all(expr, "trillion", "*10^12");
  expr = drop_units(expr);
  if (!expr.empty() && expr.front() == '{' && expr.back() == '}') {
    expr = expr.substr(1, expr.size() - 2);
  }
  expr = drop_thin_space_commas(expr);
  if (const auto value = python_float(expr); value && float_is_int(*value)) {
    expr = integer_string(std::nearbyint(*value));
  }
  if (contains(expr, "\\")) expr = parse_latex(expr);
  expr = join_minus(expr);
  expr = join_mixed_numbers(expr);
  expr = replace_all(expr, " ", "");
  expr = replace_all(expr, "{", "");
  expr = replace_all(expr, "}", "");
  expr = lower_ascii(expr);
  if (str_is_int(expr)) {
    expr = integer_string(std::trunc(*python_float(replace_all(expr, ",", ""))));
  }
  return expr;
}

bool grade_answer(std::string_view given, std::string_view ground_truth) {
  if (normalize_answer(ground_truth) == normalize_answer(given)) return true;
  const std::string truth = normalize(ground_truth);
  const std::string answer = normalize(given);
  if (truth == answer) return true;
  if (answer.empty()) return false;
  const auto truth_elems = split_tuple(truth);
  const auto answer_elems = split_tuple(answer);
  if (truth_elems.size() > 1 && (first_code_point(truth) != first_code_point(answer) ||
                                 last_code_point(truth) != last_code_point(answer))) {
    return false;
  }
  if (truth_elems.size() != answer_elems.size()) return false;
  for (std::size_t i = 0; i < truth_elems.size(); ++i) {
    if (!elements_equal(truth_elems[i], answer_elems[i])) return false;
  }
  return true;
}

}  // namespace verlpp::reward
