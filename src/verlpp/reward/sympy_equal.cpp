#include "verlpp/reward/sympy_equal.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/reward/python_str.h"

namespace verlpp::reward {
namespace {

// Raised for whatever Python's tokenizer or sympy's parser would reject.
struct ParseFailed {};

constexpr int kAssignments = 3;
// CPython's parser refuses more than 200 nested parentheses (a SyntaxError: not equal); chained
// unary signs share the count, so that no input recurses deeper than this.
constexpr int kMaxDepth = 200;
constexpr double kRelativeTolerance = 1e-9;

// The names sympy's parse_expr keeps whole (sympy.abc's Greek letters become one symbol each).
constexpr std::array<std::string_view, 24> kGreek = {
    "alpha", "beta",  "gamma",  "delta",   "epsilon", "zeta", "eta",     "theta",
    "iota",  "kappa", "lambda", "mu",      "nu",      "xi",   "omicron", "pi",
    "rho",   "sigma", "tau",    "upsilon", "phi",     "chi",  "psi",     "omega"};

const std::map<std::string_view, double (*)(double), std::less<>>& functions() {
  static const std::map<std::string_view, double (*)(double), std::less<>> table = {
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"tan", [](double x) { return std::tan(x); }},
      {"cot", [](double x) { return 1.0 / std::tan(x); }},
      {"sec", [](double x) { return 1.0 / std::cos(x); }},
      {"csc", [](double x) { return 1.0 / std::sin(x); }},
      {"asin", [](double x) { return std::asin(x); }},
      {"acos", [](double x) { return std::acos(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"sinh", [](double x) { return std::sinh(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"ln", [](double x) { return std::log(x); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"abs", [](double x) { return std::fabs(x); }},
      {"gamma", [](double x) { return std::tgamma(x); }},
      {"factorial", [](double x) { return std::tgamma(x + 1.0); }},
  };
  return table;
}

// A symbol's value at assignment k: a fixed spread over [0.5, 2.5) from the name's hash, so equal
// names get equal values and different names almost surely different ones.
double symbol_value(const std::string& name, int k) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  const double u = static_cast<double>(h % 1000003) / 1000003.0;
  return 0.5 + 2.0 * std::fmod(u + 0.381966 * k, 1.0);
}

enum class Kind { kNumber, kName, kOp, kEnd };

struct Token {
  Kind kind;
  std::string text;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

std::size_t number_end(std::string_view s, std::size_t i) {
  while (i < s.size() && (is_digit(s[i]) || s[i] == '_')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i + 1 < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      while (j < s.size() && is_digit(s[j])) ++j;
      return j;
    }
  }
  return i;
}

// Python's tokenizer on the subset the grader's strings use.
std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      const std::size_t end = number_end(s, i);
      tokens.push_back({Kind::kNumber, std::string(s.substr(i, end - i))});
      i = end;
    } else if (is_name_char(c)) {
      std::size_t end = i;
      while (end < s.size() && is_name_char(s[end])) ++end;
      tokens.push_back({Kind::kName, std::string(s.substr(i, end - i))});
      i = end;
    } else if (s.substr(i, 2) == "**") {
      tokens.push_back({Kind::kOp, "**"});
      i += 2;
    } else if (std::string_view("+-*/()!").find(c) != std::string_view::npos) {
      if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') throw ParseFailed{};
      tokens.push_back({Kind::kOp, std::string(1, c)});
      ++i;
    } else {
      throw ParseFailed{};
    }
  }
  tokens.push_back({Kind::kEnd, ""});
  return tokens;
}

bool is_greek(std::string_view name) {
  for (auto g : kGreek) {
    if (g == name) return true;
  }
  return false;
}

// sympy's split_symbols: a name it does not know becomes one factor per letter and per digit run.
std::vector<Token> split_name(const std::string& name) {
  if (name.size() == 1 || is_greek(name) || contains(name, "_")) return {{Kind::kName, name}};
  std::vector<Token> parts;
  for (std::size_t i = 0; i < name.size();) {
    if (is_digit(name[i])) {
      std::size_t end = i;
      while (end < name.size() && is_digit(name[end])) ++end;
      parts.push_back({Kind::kNumber, name.substr(i, end - i)});
      i = end;
    } else {
      const std::size_t len = char_len(name, i);
      parts.push_back({Kind::kName, name.substr(i, len)});
      i += len;
    }
  }
  return parts;
}

bool is_known(const std::string& name) {
  return functions().count(name) > 0 || name == "pi" || name == "oo";
}

// Replaces each unknown multi-letter name by its split factors (juxtaposed, so multiplied).
std::vector<Token> expand_names(std::vector<Token> tokens) {
  std::vector<Token> out;
  for (auto& token : tokens) {
    if (token.kind != Kind::kName || is_known(token.text)) {
      out.push_back(std::move(token));
      continue;
    }
    for (auto& part : split_name(token.text)) out.push_back(std::move(part));
  }
  return out;
}

// Recursive descent over Python's precedence (+ - < * / and juxtaposition < unary < ** < !),
// evaluating as it parses at one assignment of the symbols.
class Evaluator {
 public:
  Evaluator(const std::vector<Token>& tokens, int assignment)
      : tokens_(tokens), assignment_(assignment) {}

  double run() {
    const double value = sum();
    if (peek().kind != Kind::kEnd) throw ParseFailed{};
    return value;
  }

  // The largest magnitude added or subtracted on the way (the scale of the result's rounding).
  double scale() const { return scale_; }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  bool at_op(std::string_view op) const { return peek().kind == Kind::kOp && peek().text == op; }
  bool starts_atom() const {
    return peek().kind == Kind::kNumber || peek().kind == Kind::kName || at_op("(");
  }

  double sum() {
    double value = product();
    while (at_op("+") || at_op("-")) {
      const bool plus = peek().text == "+";
      ++pos_;
      const double rhs = product();
      scale_ = std::max({scale_, std::fabs(value), std::fabs(rhs)});
      value = plus ? value + rhs : value - rhs;
    }
    return value;
  }

  double product() {
    double value = unary();
    for (;;) {
      if (at_op("*") || at_op("/")) {
        const bool times = peek().text == "*";
        ++pos_;
        const double rhs = unary();
        value = times ? value * rhs : value / rhs;
      } else if (starts_atom()) {
        value *= unary();
      } else {
        return value;
      }
    }
  }

  double unary() {
    if (!at_op("-") && !at_op("+")) return power();
    const Depth guard(depth_);
    const bool minus = peek().text == "-";
    ++pos_;
    const double value = unary();
    return minus ? -value : value;
  }

  double power() {
    const double base = postfix();
    if (!at_op("**")) return base;
    ++pos_;
    return std::pow(base, unary());
  }

  double postfix() {
    double value = atom();
    while (at_op("!")) {
      ++pos_;
      value = std::tgamma(value + 1.0);
    }
    return value;
  }

  double parenthesised() {
    const Depth guard(depth_);
    if (!at_op("(")) throw ParseFailed{};
    ++pos_;
    const double value = sum();
    if (!at_op(")")) throw ParseFailed{};
    ++pos_;
    return value;
  }

  double atom() {
    const Token token = peek();
    if (token.kind == Kind::kOp && token.text == "(") return parenthesised();
    if (token.kind == Kind::kNumber) {
      ++pos_;
      const auto value = python_float(token.text);
      if (!value) throw ParseFailed{};
      return *value;
    }
    if (token.kind != Kind::kName) throw ParseFailed{};
    ++pos_;
    if (token.text == "pi") return M_PI;
    if (token.text == "oo") return HUGE_VAL;
    const auto function = functions().find(token.text);
    if (function != functions().end()) return function->second(parenthesised());
    return symbol_value(token.text, assignment_);
  }

  // Counts one level of nesting for its lifetime; deeper than kMaxDepth fails the parse.
  struct Depth {
    explicit Depth(int& depth) : depth_(depth) {
      if (++depth_ > kMaxDepth) throw ParseFailed{};
    }
    ~Depth() { --depth_; }
    int& depth_;
  };

  const std::vector<Token>& tokens_;
  int assignment_;
  std::size_t pos_ = 0;
  double scale_ = 0.0;
  int depth_ = 0;
};

bool has_symbols(const std::vector<Token>& tokens) {
  for (const auto& token : tokens) {
    if (token.kind == Kind::kName && !is_known(token.text)) return true;
  }
  return false;
}

}  // namespace

bool sympy_equal(std::string_view ground_truth, std::string_view given) {
  const std::string expr = "(" + std::string(ground_truth) + ")-(" + std::string(given) + ")";
  try {
    const auto tokens = expand_names(tokenize(replace_all(expr, "^", "**")));
    const int assignments = has_symbols(tokens) ? kAssignments : 1;
    for (int k = 0; k < assignments; ++k) {
      Evaluator evaluator(tokens, k);
      const double difference = evaluator.run();
      if (!std::isfinite(difference) || !std::isfinite(evaluator.scale())) return false;
      if (std::fabs(difference) > kRelativeTolerance * std::max(1.0, evaluator.scale())) {
        return false;
      }
    }
    return true;
  } catch (const ParseFailed&) {
    return false;
  }
}

}  // namespace verlpp::reward
