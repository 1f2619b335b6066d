// Values of the Jinja interpreter, with Python's semantics as jinja2 gives them to templates:
// None, bool, int, float, str, list/tuple, dict (insertion-ordered), namespace, callables, and
// jinja2's Undefined (renders as "", is falsy and iterates as empty; using it further is an error).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "verlpp/tokenizer/chat_template.h"

namespace verlpp::tokenizer::jinja {

class Value;
struct CallArgs;
class Interpreter;

struct ListData {
  std::vector<Value> items;
  bool tuple = false;  // prints as (a, b) instead of [a, b]
};

struct DictData {
  std::vector<std::pair<std::string, Value>> items;
  bool is_namespace = false;  // jinja2's namespace(): the only object `set x.attr` may change
  const Value* find(std::string_view key) const;
  void set(const std::string& key, Value value);
};

struct Function {
  std::string name;
  std::function<Value(Interpreter&, CallArgs&)> call;
};

struct Undefined {
  std::string name;  // what was looked up, for error messages
};

class Value {
 public:
  enum class Kind { undefined, none, boolean, integer, real, string, list, dict, function };

  Value() : data_(Undefined{}) {}
  static Value undefined(std::string name) { return Value(Undefined{std::move(name)}); }
  static Value none() { return Value(nullptr); }
  Value(bool b) : data_(b) {}
  Value(std::int64_t i) : data_(i) {}
  Value(int i) : data_(static_cast<std::int64_t>(i)) {}
  Value(double d) : data_(d) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(const char* s) : data_(std::string(s)) {}
  static Value list(std::vector<Value> items = {}, bool tuple = false);
  static Value dict(std::vector<std::pair<std::string, Value>> items = {});
  static Value function(std::string name, std::function<Value(Interpreter&, CallArgs&)> call);
  static Value from_json(const OrderedJson& json);

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_undefined() const { return kind() == Kind::undefined; }
  bool is_none() const { return kind() == Kind::none; }
  bool is_bool() const { return kind() == Kind::boolean; }
  bool is_int() const { return kind() == Kind::integer; }
  bool is_real() const { return kind() == Kind::real; }
  bool is_number() const { return is_int() || is_real() || is_bool(); }
  bool is_string() const { return kind() == Kind::string; }
  bool is_list() const { return kind() == Kind::list; }
  bool is_dict() const { return kind() == Kind::dict; }
  bool is_function() const { return kind() == Kind::function; }

  bool as_bool() const { return std::get<bool>(data_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(data_); }
  double as_real() const { return std::get<double>(data_); }
  // int, float or bool as a double / an integer (bools are ints in Python).
  double to_double() const;
  std::int64_t to_int() const;
  const std::string& as_string() const { return std::get<std::string>(data_); }
  ListData& as_list() const { return *std::get<std::shared_ptr<ListData>>(data_); }
  DictData& as_dict() const { return *std::get<std::shared_ptr<DictData>>(data_); }
  const Function& as_function() const { return *std::get<std::shared_ptr<Function>>(data_); }
  const std::string& undefined_name() const { return std::get<Undefined>(data_).name; }

  // Python's bool(x).
  bool truthy() const;
  // Python's str(x) (what {{ x }} prints; Undefined prints as "").
  std::string str() const;
  // Python's repr(x).
  std::string repr() const;
  // Python's ==.
  bool equals(const Value& other) const;
  // Python's type name, for error messages ("str", "int", "list", "dict", "NoneType", ...).
  std::string type_name() const;
  // json.dumps(x, ensure_ascii, indent, separators, sort_keys); indent < 0 means None.
  // Throws verlpp::Error for values JSON cannot hold (Undefined, functions).
  std::string to_json(int indent, bool ensure_ascii, bool sort_keys,
                      const std::string& item_separator, const std::string& key_separator) const;
  // The value as OrderedJson (for passing values out); same restrictions as to_json.
  OrderedJson to_ordered_json() const;

 private:
  explicit Value(Undefined u) : data_(std::move(u)) {}
  explicit Value(std::nullptr_t) : data_(nullptr) {}
  std::variant<Undefined, std::nullptr_t, bool, std::int64_t, double, std::string,
               std::shared_ptr<ListData>, std::shared_ptr<DictData>, std::shared_ptr<Function>>
      data_;
};

// Arguments of a call: positional then keyword, in source order.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
  // The argument named `name` or at position `index`, or nullptr.
  const Value* get(std::size_t index, std::string_view name) const;
};

// Python's float repr: shortest round-trip digits, scientific outside 1e-4 <= |x| < 1e16.
std::string python_float_repr(double value);

// Python's repr of a str.
std::string python_string_repr(std::string_view text);

}  // namespace verlpp::tokenizer::jinja
