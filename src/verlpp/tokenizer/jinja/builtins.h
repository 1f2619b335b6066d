// jinja2's built-in filters, tests and globals, the Python str/dict/list methods that chat
// templates call, and the Python operators, as the interpreter uses them. transformers' additions
// are included: tojson is json.dumps(ensure_ascii=False, ...), raise_exception(message) fails the
// render, strftime_now(format) formats the current local time.
#pragma once

#include <string>
#include <string_view>

#include "verlpp/tokenizer/jinja/value.h"

namespace verlpp::tokenizer::jinja {

bool is_filter(std::string_view name);
bool is_test(std::string_view name);

// Throw verlpp::Error (without position; the interpreter adds it) on bad arguments.
Value apply_filter(Interpreter& interpreter, const std::string& name, const Value& input,
                   CallArgs& args);
bool apply_test(const std::string& name, const Value& input, const CallArgs& args);

// jinja2's environment.getattr / getitem: attributes (methods) first or items first; missing
// ones give Undefined.
Value get_attribute(const Value& object, const std::string& name);
Value get_item(const Value& object, const Value& key);
Value slice(const Value& object, const Value& start, const Value& stop, const Value& step);

// range, namespace, dict, raise_exception, strftime_now; Undefined for other names.
Value global(const std::string& name);

// Python operators: + - * / // % ** (binary), ~ (string concatenation), < <= > >=, `in`.
Value arithmetic(const std::string& op, const Value& a, const Value& b);
bool less_than(const Value& a, const Value& b);
bool contains(const Value& container, const Value& item);

// The elements `for x in value` visits: list items, dict keys, string characters; Undefined
// visits nothing. Throws for other types.
std::vector<Value> iterate(const Value& value);

}  // namespace verlpp::tokenizer::jinja
