#include "verlpp/tokenizer/jinja/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "verlpp/core/error.h"
#include "verlpp/core/utf8.h"

namespace verlpp::tokenizer::jinja {

const Value* DictData::find(std::string_view key) const {
  for (const auto& [k, v] : items) {
    if (k == key) return &v;
  }
  return nullptr;
}

void DictData::set(const std::string& key, Value value) {
  for (auto& [k, v] : items) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  items.emplace_back(key, std::move(value));
}

const Value* CallArgs::get(std::size_t index, std::string_view name) const {
  for (const auto& [k, v] : keyword) {
    if (k == name) return &v;
  }
  return index < positional.size() ? &positional[index] : nullptr;
}

Value Value::list(std::vector<Value> items, bool tuple) {
  Value v;
  v.data_ = std::make_shared<ListData>(ListData{std::move(items), tuple});
  return v;
}

Value Value::dict(std::vector<std::pair<std::string, Value>> items) {
  Value v;
  v.data_ = std::make_shared<DictData>(DictData{std::move(items), false});
  return v;
}

Value Value::function(std::string name, std::function<Value(Interpreter&, CallArgs&)> call) {
  Value v;
  v.data_ = std::make_shared<Function>(Function{std::move(name), std::move(call)});
  return v;
}

Value Value::from_json(const OrderedJson& json) {
  switch (json.type()) {
    case OrderedJson::value_t::null:
      return none();
    case OrderedJson::value_t::boolean:
      return Value(json.get<bool>());
    case OrderedJson::value_t::number_integer:
      return Value(json.get<std::int64_t>());
    case OrderedJson::value_t::number_unsigned:
      return Value(static_cast<std::int64_t>(json.get<std::uint64_t>()));
    case OrderedJson::value_t::number_float:
      return Value(json.get<double>());
    case OrderedJson::value_t::string:
      return Value(json.get<std::string>());
    case OrderedJson::value_t::array: {
      std::vector<Value> items;
      items.reserve(json.size());
      for (const auto& item : json) items.push_back(from_json(item));
      return list(std::move(items));
    }
    case OrderedJson::value_t::object: {
      std::vector<std::pair<std::string, Value>> items;
      items.reserve(json.size());
      for (const auto& [key, item] : json.items()) items.emplace_back(key, from_json(item));
      return dict(std::move(items));
    }
    default:
      throw Error("chat template context: unsupported JSON value " + json.dump());
  }
}

double Value::to_double() const {
  if (is_real()) return as_real();
  if (is_int()) return static_cast<double>(as_int());
  if (is_bool()) return as_bool() ? 1.0 : 0.0;
  throw Error("expected a number, got " + type_name());
}

std::int64_t Value::to_int() const {
  if (is_int()) return as_int();
  if (is_bool()) return as_bool() ? 1 : 0;
  throw Error("expected an integer, got " + type_name());
}

bool Value::truthy() const {
  switch (kind()) {
    case Kind::undefined:
    case Kind::none:
      return false;
    case Kind::boolean:
      return as_bool();
    case Kind::integer:
      return as_int() != 0;
    case Kind::real:
      return as_real() != 0.0;
    case Kind::string:
      return !as_string().empty();
    case Kind::list:
      return !as_list().items.empty();
    case Kind::dict:
      return as_dict().is_namespace || !as_dict().items.empty();
    case Kind::function:
      return true;
  }
  return false;
}

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  const std::string sci(buffer, result.ptr);  // e.g. "-1.2345e+02"
  const std::size_t e = sci.find('e');
  const bool negative = sci[0] == '-';
  std::string digits;
  for (std::size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string out = negative ? "-" : "";
  const int n = static_cast<int>(digits.size());
  if (exponent >= -4 && exponent < 16) {
    if (exponent >= 0) {
      if (n <= exponent + 1) {
        out += digits + std::string(exponent + 1 - n, '0') + ".0";
      } else {
        out += digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
      }
    } else {
      out += "0." + std::string(-exponent - 1, '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (n > 1) out += "." + digits.substr(1);
  char exp_text[16];
  std::snprintf(exp_text, sizeof(exp_text), "e%c%02d", exponent < 0 ? '-' : '+',
                std::abs(exponent));
  return out + exp_text;
}

std::string python_string_repr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  std::size_t i = 0;
  while (i < text.size()) {
    const char32_t c = utf8::next(text, i);
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned>(c));
      out += hex;
    } else {
      utf8::append(out, c);
    }
  }
  out.push_back(quote);
  return out;
}

std::string Value::str() const {
  switch (kind()) {
    case Kind::undefined:
      return "";
    case Kind::none:
      return "None";
    case Kind::boolean:
      return as_bool() ? "True" : "False";
    case Kind::integer:
      return std::to_string(as_int());
    case Kind::real:
      return python_float_repr(as_real());
    case Kind::string:
      return as_string();
    default:
      return repr();
  }
}

std::string Value::repr() const {
  switch (kind()) {
    case Kind::string:
      return python_string_repr(as_string());
    case Kind::list: {
      const auto& data = as_list();
      std::string out = data.tuple ? "(" : "[";
      for (std::size_t i = 0; i < data.items.size(); ++i) {
        if (i > 0) out += ", ";
        out += data.items[i].repr();
      }
      if (data.tuple && data.items.size() == 1) out += ",";
      return out + (data.tuple ? ")" : "]");
    }
    case Kind::dict: {
      const auto& data = as_dict();
      std::string out = data.is_namespace ? "<Namespace {" : "{";
      for (std::size_t i = 0; i < data.items.size(); ++i) {
        if (i > 0) out += ", ";
        out += python_string_repr(data.items[i].first) + ": " + data.items[i].second.repr();
      }
      return out + (data.is_namespace ? "}>" : "}");
    }
    case Kind::function:
      return "<function " + as_function().name + ">";
    case Kind::undefined:
      return "Undefined";
    default:
      return str();
  }
}

bool Value::equals(const Value& other) const {
  if (is_number() && other.is_number()) {
    if (is_real() || other.is_real()) return to_double() == other.to_double();
    return to_int() == other.to_int();
  }
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::undefined:
    case Kind::none:
      return true;
    case Kind::string:
      return as_string() == other.as_string();
    case Kind::list: {
      const auto& a = as_list().items;
      const auto& b = other.as_list().items;
      if (as_list().tuple != other.as_list().tuple || a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!a[i].equals(b[i])) return false;
      }
      return true;
    }
    case Kind::dict: {
      const auto& a = as_dict();
      const auto& b = other.as_dict();
      if (a.is_namespace || b.is_namespace) return &a == &b;
      if (a.items.size() != b.items.size()) return false;
      for (const auto& [key, value] : a.items) {
        const Value* match = b.find(key);
        if (match == nullptr || !value.equals(*match)) return false;
      }
      return true;
    }
    case Kind::function:
      return &as_function() == &other.as_function();
    default:
      return false;
  }
}

std::string Value::type_name() const {
  switch (kind()) {
    case Kind::undefined:
      return "Undefined";
    case Kind::none:
      return "NoneType";
    case Kind::boolean:
      return "bool";
    case Kind::integer:
      return "int";
    case Kind::real:
      return "float";
    case Kind::string:
      return "str";
    case Kind::list:
      return as_list().tuple ? "tuple" : "list";
    case Kind::dict:
      return as_dict().is_namespace ? "Namespace" : "dict";
    case Kind::function:
      return "function";
  }
  return "?";
}

namespace {

void json_string(std::string& out, std::string_view text, bool ensure_ascii) {
  out.push_back('"');
  std::size_t i = 0;
  while (i < text.size()) {
    const char32_t c = utf8::next(text, i);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default: {
        char hex[16];
        if (c < 0x20 || (ensure_ascii && c > 0x7E && c < 0x10000)) {
          std::snprintf(hex, sizeof(hex), "\\u%04x", static_cast<unsigned>(c));
          out += hex;
        } else if (ensure_ascii && c >= 0x10000) {
          const char32_t v = c - 0x10000;
          std::snprintf(hex, sizeof(hex), "\\u%04x\\u%04x",
                        static_cast<unsigned>(0xD800 + (v >> 10)),
                        static_cast<unsigned>(0xDC00 + (v & 0x3FF)));
          out += hex;
        } else {
          utf8::append(out, c);
        }
      }
    }
  }
  out.push_back('"');
}

struct JsonWriter {
  int indent;
  bool ensure_ascii, sort_keys;
  std::string item_separator, key_separator;
  std::string out;

  void newline(int depth) {
    out.push_back('\n');
    out.append(static_cast<std::size_t>(indent * depth), ' ');
  }

  void write(const Value& v, int depth) {
    switch (v.kind()) {
      case Value::Kind::none:
        out += "null";
        return;
      case Value::Kind::boolean:
        out += v.as_bool() ? "true" : "false";
        return;
      case Value::Kind::integer:
        out += std::to_string(v.as_int());
        return;
      case Value::Kind::real: {
        const double d = v.as_real();
        out += std::isnan(d)   ? "NaN"
               : std::isinf(d) ? (d < 0 ? "-Infinity" : "Infinity")
                               : python_float_repr(d);
        return;
      }
      case Value::Kind::string:
        json_string(out, v.as_string(), ensure_ascii);
        return;
      case Value::Kind::list:
        write_list(v.as_list().items, depth);
        return;
      case Value::Kind::dict:
        if (!v.as_dict().is_namespace) {
          write_dict(v.as_dict().items, depth);
          return;
        }
        [[fallthrough]];
      default:
        throw Error("tojson: Object of type " + v.type_name() + " is not JSON serializable");
    }
  }

  void write_list(const std::vector<Value>& items, int depth) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    out.push_back('[');
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += item_separator;
      if (indent >= 0) newline(depth + 1);
      write(items[i], depth + 1);
    }
    if (indent >= 0) newline(depth);
    out.push_back(']');
  }

  void write_dict(const std::vector<std::pair<std::string, Value>>& entries, int depth) {
    if (entries.empty()) {
      out += "{}";
      return;
    }
    std::vector<const std::pair<std::string, Value>*> order;
    for (const auto& entry : entries) order.push_back(&entry);
    if (sort_keys) {
      std::stable_sort(order.begin(), order.end(),
                       [](const auto* a, const auto* b) { return a->first < b->first; });
    }
    out.push_back('{');
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (i > 0) out += item_separator;
      if (indent >= 0) newline(depth + 1);
      json_string(out, order[i]->first, ensure_ascii);
      out += key_separator;
      write(order[i]->second, depth + 1);
    }
    if (indent >= 0) newline(depth);
    out.push_back('}');
  }
};

}  // namespace

std::string Value::to_json(int indent, bool ensure_ascii, bool sort_keys,
                           const std::string& item_separator,
                           const std::string& key_separator) const {
  JsonWriter writer{indent, ensure_ascii, sort_keys, item_separator, key_separator, {}};
  writer.write(*this, 0);
  return std::move(writer.out);
}

OrderedJson Value::to_ordered_json() const {
  return OrderedJson::parse(to_json(-1, false, false, ",", ":"));
}

}  // namespace verlpp::tokenizer::jinja
