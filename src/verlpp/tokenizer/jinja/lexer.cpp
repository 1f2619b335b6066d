#include "verlpp/tokenizer/jinja/lexer.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "verlpp/core/error.h"
#include "verlpp/core/utf8.h"

namespace verlpp::tokenizer::jinja {

bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

namespace {

// Python's str.splitlines() boundaries, which jinja2 turns into "\n" before lexing.
bool is_line_boundary(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) ||
         c == 0x85 || c == 0x2028 || c == 0x2029;
}

// "\n".join(source.splitlines()): every line boundary (\r\n counts once) becomes "\n", and one
// trailing line break disappears.
std::string normalize_newlines(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  std::size_t i = 0;
  while (i < source.size()) {
    const std::size_t start = i;
    const char32_t c = utf8::next(source, i);
    if (!is_line_boundary(c)) {
      out.append(source, start, i - start);
      continue;
    }
    if (c == '\r' && i < source.size() && source[i] == '\n') ++i;
    out.push_back('\n');
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::size_t rstrip_python(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    std::size_t i = start;
    if (!is_python_space(utf8::next(text, i))) break;
    end = start;
  }
  return end;
}

std::size_t lstrip_python(std::string_view text, std::size_t from) {
  while (from < text.size()) {
    std::size_t i = from;
    if (!is_python_space(utf8::next(text, i))) break;
    from = i;
  }
  return from;
}

bool is_name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(const std::string& source, const std::string& name)
      : src_(normalize_newlines(source)), name_(name) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < src_.size(); ++i) {
      if (src_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  std::vector<Token> run() {
    bool line_starting = true;
    while (pos_ < src_.size()) {
      const std::size_t open = find_open(pos_);
      std::string_view text = std::string_view(src_).substr(pos_, open - pos_);
      if (open == src_.size()) {
        emit_text(text, pos_);
        break;
      }
      const char kind = src_[open + 1];  // '{', '%' or '#'
      const char sign = open + 2 < src_.size() ? src_[open + 2] : '\0';
      if (sign == '-') {
        text = text.substr(0, rstrip_python(text));
      } else if (sign != '+' && kind != '{') {
        const std::size_t line_start =
            text.rfind('\n') == std::string_view::npos ? 0 : text.rfind('\n') + 1;
        const bool at_line_start = line_start > 0 || line_starting;
        const std::string_view tail = text.substr(line_start);
        if (at_line_start && !tail.empty() && lstrip_python(tail, 0) == tail.size()) {
          text = text.substr(0, line_start);
        }
      }
      emit_text(text, pos_);
      pos_ = open + 2 + (sign == '-' || sign == '+' ? 1 : 0);
      if (kind == '#') {
        skip_comment(open);
      } else {
        lex_tag(kind, open);
      }
      line_starting = pos_ > 0 && src_[pos_ - 1] == '\n';
    }
    tokens_.push_back({Token::Type::end, "", position(src_.size())});
    return std::move(tokens_);
  }

 private:
  Position position(std::size_t offset) const {
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - 1;
    return {static_cast<int>(it - line_starts_.begin()) + 1, static_cast<int>(offset - *it) + 1};
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw Error("chat template '" + name_ + "' line " + position(offset).str() + ": " + message);
  }

  std::size_t find_open(std::size_t from) const {
    while (true) {
      const std::size_t at = src_.find('{', from);
      if (at == std::string::npos || at + 1 >= src_.size()) return src_.size();
      const char next = src_[at + 1];
      if (next == '{' || next == '%' || next == '#') return at;
      from = at + 1;
    }
  }

  void emit_text(std::string_view text, std::size_t offset) {
    if (!text.empty()) tokens_.push_back({Token::Type::text, std::string(text), position(offset)});
  }

  // After a closing delimiter: '-' strips following whitespace; trim_blocks (blocks and
  // comments, unless '+') drops one newline.
  void after_close(char sign, bool block) {
    if (sign == '-') {
      pos_ = lstrip_python(src_, pos_);
    } else if (sign != '+' && block && pos_ < src_.size() && src_[pos_] == '\n') {
      ++pos_;
    }
  }

  void skip_comment(std::size_t open) {
    const std::size_t close = src_.find("#}", pos_);
    if (close == std::string::npos) fail(open, "unterminated comment {# ... #}");
    const char sign = close > pos_ ? src_[close - 1] : '\0';
    pos_ = close + 2;
    after_close(sign == '-' || sign == '+' ? sign : '\0', true);
  }

  // Tries to read the closing delimiter of a tag at pos_ (with an optional '-'/'+' before it).
  bool closes(char kind, char& sign) {
    const char* closer = kind == '{' ? "}}" : "%}";
    std::size_t at = pos_;
    sign = '\0';
    if (at < src_.size() && (src_[at] == '-' || src_[at] == '+')) {
      if (src_.compare(at + 1, 2, closer) != 0) return false;
      sign = src_[at];
      ++at;
    } else if (src_.compare(at, 2, closer) != 0) {
      return false;
    }
    pos_ = at + 2;
    return true;
  }

  void lex_tag(char kind, std::size_t open) {
    const bool block = kind == '%';
    tokens_.push_back(
        {block ? Token::Type::block_begin : Token::Type::var_begin, "", position(open)});
    const std::size_t first_token = tokens_.size();
    while (true) {
      while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\n'))
        ++pos_;
      if (pos_ >= src_.size())
        fail(open, block ? "unterminated {% ... %}" : "unterminated {{ ... }}");
      const std::size_t at = pos_;
      char sign = '\0';
      if (closes(kind, sign)) {
        tokens_.push_back(
            {block ? Token::Type::block_end : Token::Type::var_end, "", position(at)});
        after_close(sign, block);
        return;
      }
      lex_token();
      if (block && tokens_.size() == first_token + 1 && tokens_.back().value == "raw") {
        fail(open, "unsupported Jinja construct '{% raw %}'");
      }
    }
  }

  void lex_token() {
    const std::size_t start = pos_;
    const char c = src_[pos_];
    if (is_name_start(c)) {
      while (pos_ < src_.size() && is_name_char(src_[pos_])) ++pos_;
      tokens_.push_back({Token::Type::name, src_.substr(start, pos_ - start), position(start)});
    } else if (is_digit(c)) {
      lex_number(start);
    } else if (c == '\'' || c == '"') {
      tokens_.push_back({Token::Type::string, lex_string(start), position(start)});
    } else {
      static constexpr std::array<std::string_view, 25> kOperators = {
          "//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
          ">",  "=",  "(",  ")",  "[",  "]",  "{", "}", ",", ".", ":", "|"};
      for (const auto op : kOperators) {
        if (src_.compare(pos_, op.size(), op) == 0) {
          pos_ += op.size();
          tokens_.push_back({Token::Type::op, std::string(op), position(start)});
          return;
        }
      }
      fail(start, std::string("unexpected character '") + c + "'");
    }
  }

  void lex_number(std::size_t start) {
    const auto digits = [&] {
      while (pos_ < src_.size() && (is_digit(src_[pos_]) || src_[pos_] == '_')) ++pos_;
    };
    digits();
    bool real = false;
    if (pos_ + 1 < src_.size() && src_[pos_] == '.' && is_digit(src_[pos_ + 1])) {
      ++pos_;
      digits();
      real = true;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      std::size_t at = pos_ + 1;
      if (at < src_.size() && (src_[at] == '+' || src_[at] == '-')) ++at;
      if (at < src_.size() && is_digit(src_[at])) {
        pos_ = at;
        digits();
        real = true;
      }
    }
    std::string text = src_.substr(start, pos_ - start);
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    tokens_.push_back({real ? Token::Type::real : Token::Type::integer, text, position(start)});
  }

  // A string literal with Python's escapes (jinja2 decodes literals with "unicode-escape";
  // unknown escapes keep their backslash).
  std::string lex_string(std::size_t start) {
    const char quote = src_[pos_++];
    std::string out;
    while (true) {
      if (pos_ >= src_.size()) fail(start, "unterminated string literal");
      const char c = src_[pos_++];
      if (c == quote) return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= src_.size()) fail(start, "unterminated string literal");
      const char e = src_[pos_++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'v':
          out.push_back('\v');
          break;
        case 'a':
          out.push_back('\a');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '\'':
          out.push_back('\'');
          break;
        case '"':
          out.push_back('"');
          break;
        case '\n':
          break;
        case 'x':
          out_code_point(out, 2, start);
          break;
        case 'u':
          out_code_point(out, 4, start);
          break;
        case 'U':
          out_code_point(out, 8, start);
          break;
        default:
          if (e >= '0' && e <= '7') {
            char32_t value = static_cast<char32_t>(e - '0');
            for (int k = 0; k < 2 && pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '7';
                 ++k)
              value = value * 8 + static_cast<char32_t>(src_[pos_++] - '0');
            utf8::append(out, value);
          } else {
            out.push_back('\\');
            out.push_back(e);
          }
      }
    }
  }

  void out_code_point(std::string& out, int digits, std::size_t start) {
    if (pos_ + static_cast<std::size_t>(digits) > src_.size())
      fail(start, "truncated \\x/\\u escape");
    const std::string hex = src_.substr(pos_, static_cast<std::size_t>(digits));
    if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      fail(pos_, "invalid escape \\" + std::string(1, src_[pos_ - 1]) + hex);
    }
    const auto value = static_cast<char32_t>(std::stoul(hex, nullptr, 16));
    if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
      fail(pos_, "invalid code point escape");
    utf8::append(out, value);
    pos_ += static_cast<std::size_t>(digits);
  }

  std::string src_;
  std::string name_;
  std::size_t pos_ = 0;
  std::vector<std::size_t> line_starts_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(const std::string& source, const std::string& name) {
  return Lexer(source, name).run();
}

}  // namespace verlpp::tokenizer::jinja
