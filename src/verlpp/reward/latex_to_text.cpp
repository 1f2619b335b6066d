#include "verlpp/reward/latex_to_text.h"

#include <map>
#include <set>

namespace verlpp::reward {
namespace {

constexpr int kMaxDepth = 500;

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

const std::map<std::string, std::string, std::less<>>& symbols() {
  static const std::map<std::string, std::string, std::less<>> table = {
      {"alpha", "α"},
      {"beta", "β"},
      {"gamma", "γ"},
      {"delta", "δ"},
      {"epsilon", "ϵ"},
      {"zeta", "ζ"},
      {"eta", "η"},
      {"theta", "θ"},
      {"iota", "ι"},
      {"kappa", "κ"},
      {"lambda", "λ"},
      {"mu", "μ"},
      {"nu", "ν"},
      {"xi", "ξ"},
      {"omicron", "ο"},
      {"pi", "π"},
      {"rho", "ρ"},
      {"sigma", "σ"},
      {"tau", "τ"},
      {"upsilon", "υ"},
      {"phi", "ϕ"},
      {"chi", "χ"},
      {"psi", "ψ"},
      {"omega", "ω"},
      {"Alpha", "Α"},
      {"Beta", "Β"},
      {"Gamma", "Γ"},
      {"Delta", "Δ"},
      {"Epsilon", "Ε"},
      {"Zeta", "Ζ"},
      {"Eta", "Η"},
      {"Theta", "Θ"},
      {"Iota", "Ι"},
      {"Kappa", "Κ"},
      {"Lambda", "Λ"},
      {"Mu", "Μ"},
      {"Nu", "Ν"},
      {"Xi", "Ξ"},
      {"Omicron", "Ο"},
      {"Pi", "Π"},
      {"Rho", "Ρ"},
      {"Sigma", "Σ"},
      {"Tau", "Τ"},
      {"Upsilon", "Υ"},
      {"Phi", "Φ"},
      {"Chi", "Χ"},
      {"Psi", "Ψ"},
      {"Omega", "Ω"},
      {"varepsilon", "ε"},
      {"vartheta", "ϑ"},
      {"varpi", "ϖ"},
      {"varrho", "ϱ"},
      {"varsigma", "ς"},
      {"varphi", "φ"},
      {"cdot", "·"},
      {"times", "×"},
      {"div", "÷"},
      {"pm", "±"},
      {"mp", "∓"},
      {"infty", "∞"},
      {"cup", "∪"},
      {"cap", "∩"},
      {"circ", "∘"},
      {"angle", "∠"},
      {"le", "≤"},
      {"leq", "≤"},
      {"ge", "≥"},
      {"geq", "≥"},
      {"neq", "≠"},
      {"approx", "≈"},
      {"sim", "∼"},
      {"cong", "≅"},
      {"perp", "⊥"},
      {"parallel", "∥"},
      {"to", "→"},
      {"rightarrow", "→"},
      {"ldots", "…"},
      {"dots", "…"},
      {"cdots", "⋯"},
      {"prime", "'"},
      {"mid", "|"},
      {"vert", "|"},
      {"sin", "sin"},
      {"cos", "cos"},
      {"tan", "tan"},
      {"arcsin", "arcsin"},
      {"arccos", "arccos"},
      {"arctan", "arctan"},
      {"sinh", "sinh"},
      {"cosh", "cosh"},
      {"tanh", "tanh"},
      {"ln", "ln"},
      {"log", "log"},
      {"exp", "exp"},
      {"min", "min"},
      {"max", "max"},
      {"quad", "  "},
      {"qquad", "    "},
      {",", " "},
      {";", " "},
      {":", " "},
      {" ", " "},
      {"!", ""},
      {"\\", "\n"},
      {"$", "$"},
      {"{", "{"},
      {"}", "}"},
      {"%", "%"},
      {"&", "&"},
      {"#", "#"},
      {"_", "_"},
      {"~", "~"},
  };
  return table;
}

const std::set<std::string, std::less<>>& one_argument() {
  static const std::set<std::string, std::less<>> names = {
      "text",   "textrm",  "textit",   "textbf",    "textsc",  "textsl",
      "emph",   "mathrm",  "mathbf",   "mathit",    "mathsf",  "mathbb",
      "mathtt", "mathcal", "overline", "underline", "widehat", "widetilde"};
  return names;
}

struct TooDeep {};

class Converter {
 public:
  explicit Converter(std::string_view s) : s_(s) {}

  // Text up to the end, or up to the "}" closing the current group when `in_group`. Throws
  // TooDeep past kMaxDepth nested groups (Python's recursion limit stops pylatexenc there).
  std::string nodes(bool in_group) {
    if (++depth_ > kMaxDepth) throw TooDeep{};
    std::string out;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == '}') {
        ++pos_;
        if (in_group) {
          --depth_;
          return out;
        }
      } else if (c == '{') {
        ++pos_;
        out += nodes(true);
      } else if (c == '\\') {
        out += macro();
      } else {
        out += special();
      }
    }
    --depth_;
    return out;
  }

 private:
  std::string special() {
    static const std::pair<std::string_view, std::string_view> kSpecials[] = {
        {"---", "—"}, {"--", "–"}, {"``", "“"},     {"''", "”"},
        {"!`", "¡"},  {"?`", "¿"}, {"~", "\u00a0"}, {"&", "   "}};
    for (const auto& [text, replacement] : kSpecials) {
      if (s_.substr(pos_, text.size()) == text) {
        pos_ += text.size();
        return std::string(replacement);
      }
    }
    return std::string(1, s_[pos_++]);
  }

  void skip_spaces() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }

  std::string macro_name() {
    ++pos_;  // the backslash
    if (pos_ >= s_.size()) return "";
    const std::size_t start = pos_;
    if (!is_letter(s_[pos_])) return std::string(1, s_[pos_++]);
    while (pos_ < s_.size() && is_letter(s_[pos_])) ++pos_;
    std::string name(s_.substr(start, pos_ - start));
    skip_spaces();
    return name;
  }

  // One mandatory argument: a {group}, a macro token (without its own arguments) or a character.
  std::string argument() {
    skip_spaces();
    if (pos_ >= s_.size()) return "";
    if (s_[pos_] == '{') {
      ++pos_;
      return nodes(true);
    }
    if (s_[pos_] == '\\') {
      const std::string name = macro_name();
      const auto symbol = symbols().find(name);
      return symbol == symbols().end() ? "" : symbol->second;
    }
    return special();
  }

  // An optional [argument]: skipped (only \sqrt takes one here, and drops it).
  void skip_optional() {
    skip_spaces();
    if (pos_ >= s_.size() || s_[pos_] != '[') return;
    int depth = 0;
    for (; pos_ < s_.size(); ++pos_) {
      if (s_[pos_] == '{') ++depth;
      if (s_[pos_] == '}') --depth;
      if (s_[pos_] == ']' && depth <= 0) {
        ++pos_;
        return;
      }
    }
  }

  std::string macro() {
    const std::string name = macro_name();
    if (name == "frac" || name == "nicefrac" || name == "textfrac") {
      std::string numerator = argument();
      return numerator + "/" + argument();
    }
    if (name == "sqrt") {
      skip_optional();
      return "√(" + argument() + ")";
    }
    if (one_argument().count(name) > 0) return argument();
    const auto symbol = symbols().find(name);
    return symbol == symbols().end() ? "" : symbol->second;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::optional<std::string> latex_to_text(std::string_view latex) {
  try {
    return Converter(latex).nodes(false);
  } catch (const TooDeep&) {
    return std::nullopt;
  }
}

}  // namespace verlpp::reward
