// Splits a Jinja template into tokens the way jinja2's lexer does under transformers' settings
// (trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False): text, {{ }}, {% %} with
// their expression tokens; comments vanish. Whitespace control: '-' after an opening / before a
// closing delimiter strips all whitespace on that side; trim_blocks drops the first newline after
// a block or comment; lstrip_blocks drops spaces and tabs between a line start and a block or
// comment; '+' disables both.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace verlpp::tokenizer::jinja {

struct Position {
  int line = 1;
  int column = 1;
  std::string str() const { return std::to_string(line) + ":" + std::to_string(column); }
};

struct Token {
  enum class Type {
    text,         // template data (value: the text)
    var_begin,    // {{
    var_end,      // }}
    block_begin,  // {%
    block_end,    // %}
    name,
    string,   // value: the decoded literal
    integer,  // value: the digits
    real,     // value: the literal
    op,       // value: the operator, e.g. "==", "(", "|"
    end       // end of the template
  };
  Type type;
  std::string value;
  Position position;
};

// Throws verlpp::Error("<name> line L:C: ...") for unterminated tags/strings/comments, characters
// that start no token, and {% raw %} (not supported).
std::vector<Token> tokenize(const std::string& source, const std::string& name);

// Python's str.isspace() for one code point.
bool is_python_space(char32_t c);

}  // namespace verlpp::tokenizer::jinja
