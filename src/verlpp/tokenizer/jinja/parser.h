// Parses template tokens into a Template, following jinja2's grammar and operator precedence
// (jinja2/parser.py): conditional < or < and < not < comparisons < + - < ~ < * / // % < ** <
// unary - + < postfix (. [] ()) and filters/tests.
#pragma once

#include <memory>
#include <string>

#include "verlpp/tokenizer/jinja/ast.h"

namespace verlpp::tokenizer::jinja {

// Throws verlpp::Error("chat template '<name>' line L:C: ...") on syntax errors, unknown
// filters/tests, and constructs outside the supported subset (naming them).
std::shared_ptr<const Template> parse(const std::string& source, const std::string& name);

}  // namespace verlpp::tokenizer::jinja
