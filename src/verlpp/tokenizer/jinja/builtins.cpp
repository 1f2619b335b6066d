#include "verlpp/tokenizer/jinja/builtins.h"

#include <utf8proc.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

#include "verlpp/core/error.h"
#include "verlpp/core/utf8.h"
#include "verlpp/tokenizer/jinja/interpreter.h"
#include "verlpp/tokenizer/jinja/lexer.h"
#include "verlpp/tokenizer/jinja/limits.h"

namespace verlpp::tokenizer::jinja {
namespace {

[[noreturn]] void type_error(const std::string& message) { throw Error(message); }

[[noreturn]] void overflow_error() {
  throw Error("integer overflow (verlpp's template integers are 64-bit)");
}

std::vector<char32_t> code_points(std::string_view text) {
  std::vector<char32_t> out;
  std::size_t i = 0;
  while (i < text.size()) out.push_back(utf8::next(text, i));
  return out;
}

std::string from_code_points(const std::vector<char32_t>& cps) {
  std::string out;
  for (const char32_t c : cps) utf8::append(out, c);
  return out;
}

const std::string& need_string(const Value& v, const char* what) {
  if (!v.is_string()) type_error(std::string(what) + ": expected a string, got " + v.type_name());
  return v.as_string();
}

// Python's str.strip/lstrip/rstrip([chars]).
std::string strip(const std::string& text, const Value* chars, bool left, bool right) {
  const auto cps = code_points(text);
  std::vector<char32_t> set;
  const bool whitespace = chars == nullptr || chars->is_none();
  if (!whitespace) set = code_points(need_string(*chars, "strip"));
  const auto strip_it = [&](char32_t c) {
    return whitespace ? is_python_space(c) : std::find(set.begin(), set.end(), c) != set.end();
  };
  std::size_t begin = 0, end = cps.size();
  if (left) {
    while (begin < end && strip_it(cps[begin])) ++begin;
  }
  if (right) {
    while (end > begin && strip_it(cps[end - 1])) --end;
  }
  return from_code_points(
      {cps.begin() + static_cast<long>(begin), cps.begin() + static_cast<long>(end)});
}

// Python's str.split(sep=None, maxsplit=-1).
Value split(const std::string& text, const Value* sep, std::int64_t maxsplit) {
  std::vector<Value> parts;
  if (sep == nullptr || sep->is_none()) {
    const auto cps = code_points(text);
    std::size_t i = 0;
    while (true) {
      while (i < cps.size() && is_python_space(cps[i])) ++i;
      if (i >= cps.size()) break;
      if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
        std::size_t end = cps.size();
        while (end > i && is_python_space(cps[end - 1])) --end;
        parts.emplace_back(from_code_points(
            {cps.begin() + static_cast<long>(i), cps.begin() + static_cast<long>(end)}));
        break;
      }
      const std::size_t start = i;
      while (i < cps.size() && !is_python_space(cps[i])) ++i;
      parts.emplace_back(from_code_points(
          {cps.begin() + static_cast<long>(start), cps.begin() + static_cast<long>(i)}));
    }
    return Value::list(std::move(parts));
  }
  const std::string& separator = need_string(*sep, "split");
  if (separator.empty()) type_error("split: empty separator");
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(separator, start);
    if (at == std::string::npos ||
        (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit)) {
      parts.emplace_back(text.substr(start));
      break;
    }
    parts.emplace_back(text.substr(start, at - start));
    start = at + separator.size();
  }
  return Value::list(std::move(parts));
}

std::string map_case(const std::string& text, bool upper) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char32_t c = utf8::next(text, i);
    utf8::append(out,
                 static_cast<char32_t>(upper ? utf8proc_toupper(static_cast<utf8proc_int32_t>(c))
                                             : utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
  }
  return out;
}

bool is_alpha(char32_t c) {
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO;
}

// Python's str.title(): the first cased letter after a non-letter is upper, the rest lower.
std::string title(const std::string& text) {
  std::string out;
  bool previous_cased = false;
  std::size_t i = 0;
  while (i < text.size()) {
    const char32_t c = utf8::next(text, i);
    const auto cp = static_cast<utf8proc_int32_t>(c);
    utf8::append(
        out, static_cast<char32_t>(previous_cased ? utf8proc_tolower(cp) : utf8proc_toupper(cp)));
    previous_cased = is_alpha(c);
  }
  return out;
}

std::string capitalize(const std::string& text) {
  std::string lower = map_case(text, false);
  if (lower.empty()) return lower;
  std::size_t i = 0;
  const char32_t first = utf8::next(lower, i);
  std::string out;
  utf8::append(out, static_cast<char32_t>(utf8proc_toupper(static_cast<utf8proc_int32_t>(first))));
  return out + lower.substr(i);
}

std::string replace(const std::string& text, const std::string& old, const std::string& with,
                    std::int64_t count) {
  if (old.empty()) {
    std::string out;
    std::int64_t done = 0;
    std::size_t i = 0;
    if (count != 0) {
      out += with;
      ++done;
    }
    while (i < text.size()) {
      const std::size_t start = i;
      utf8::next(text, i);
      out.append(text, start, i - start);
      if (count < 0 || done < count) {
        out += with;
        ++done;
      }
    }
    return out;
  }
  std::string out;
  std::size_t start = 0;
  std::int64_t done = 0;
  while (count < 0 || done < count) {
    const std::size_t at = text.find(old, start);
    if (at == std::string::npos) break;
    out.append(text, start, at - start);
    out += with;
    start = at + old.size();
    ++done;
  }
  return out + text.substr(start);
}

std::int64_t length(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::undefined:
      return 0;
    case Value::Kind::string:
      return static_cast<std::int64_t>(utf8::length(v.as_string()));
    case Value::Kind::list:
      return static_cast<std::int64_t>(v.as_list().items.size());
    case Value::Kind::dict:
      return static_cast<std::int64_t>(v.as_dict().items.size());
    default:
      type_error("object of type '" + v.type_name() + "' has no len()");
  }
}

std::int64_t optional_int(const CallArgs& args, std::size_t index, std::string_view name,
                          std::int64_t fallback) {
  const Value* v = args.get(index, name);
  return v == nullptr || v->is_none() ? fallback : v->to_int();
}

bool optional_bool(const CallArgs& args, std::size_t index, std::string_view name, bool fallback) {
  const Value* v = args.get(index, name);
  return v == nullptr ? fallback : v->truthy();
}

Value bound(const std::string& name, std::function<Value(Interpreter&, CallArgs&)> fn) {
  return Value::function(name, std::move(fn));
}

Value string_method(const std::string& text, const std::string& name) {
  const auto fn = [&](auto body) { return bound(name, body); };
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    return fn([text, name](Interpreter&, CallArgs& a) {
      return Value(strip(text, a.get(0, "chars"), name != "rstrip", name != "lstrip"));
    });
  }
  if (name == "split") {
    return fn([text](Interpreter&, CallArgs& a) {
      return split(text, a.get(0, "sep"), optional_int(a, 1, "maxsplit", -1));
    });
  }
  if (name == "startswith" || name == "endswith") {
    return fn([text, name](Interpreter&, CallArgs& a) {
      const Value* arg = a.get(0, "prefix");
      if (arg == nullptr) type_error(name + "() takes at least 1 argument");
      std::vector<Value> options = arg->is_list() ? arg->as_list().items : std::vector<Value>{*arg};
      for (const auto& option : options) {
        const std::string& s = need_string(option, name.c_str());
        const bool hit =
            name == "startswith"
                ? text.compare(0, s.size(), s) == 0
                : text.size() >= s.size() && text.compare(text.size() - s.size(), s.size(), s) == 0;
        if (hit) return Value(true);
      }
      return Value(false);
    });
  }
  if (name == "upper" || name == "lower") {
    return fn(
        [text, name](Interpreter&, CallArgs&) { return Value(map_case(text, name == "upper")); });
  }
  if (name == "title") return fn([text](Interpreter&, CallArgs&) { return Value(title(text)); });
  if (name == "capitalize")
    return fn([text](Interpreter&, CallArgs&) { return Value(capitalize(text)); });
  if (name == "replace") {
    return fn([text](Interpreter&, CallArgs& a) {
      const Value* old = a.get(0, "old");
      const Value* with = a.get(1, "new");
      if (old == nullptr || with == nullptr) type_error("replace() takes at least 2 arguments");
      return Value(replace(text, need_string(*old, "replace"), need_string(*with, "replace"),
                           optional_int(a, 2, "count", -1)));
    });
  }
  if (name == "find" || name == "count") {
    return fn([text, name](Interpreter&, CallArgs& a) {
      const Value* sub = a.get(0, "sub");
      if (sub == nullptr) type_error(name + "() takes at least 1 argument");
      const std::string& s = need_string(*sub, name.c_str());
      if (name == "find") {
        const std::size_t at = text.find(s);
        return Value(at == std::string::npos
                         ? std::int64_t{-1}
                         : static_cast<std::int64_t>(utf8::length(text.substr(0, at))));
      }
      if (s.empty()) return Value(static_cast<std::int64_t>(utf8::length(text) + 1));
      std::int64_t n = 0;
      for (std::size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + s.size()))
        ++n;
      return Value(n);
    });
  }
  if (name == "join") {
    return fn([text](Interpreter&, CallArgs& a) {
      const Value* items = a.get(0, "iterable");
      if (items == nullptr) type_error("join() takes exactly one argument");
      std::string out;
      bool first = true;
      for (const auto& item : iterate(*items)) {
        if (!first) out += text;
        out += need_string(item, "join");
        first = false;
      }
      return Value(out);
    });
  }
  if (name == "splitlines") {
    return fn([text](Interpreter&, CallArgs&) {
      std::vector<Value> lines;
      std::size_t start = 0;
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n' || text[i] == '\r') {
          lines.emplace_back(text.substr(start, i - start));
          if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
          start = i + 1;
        }
      }
      if (start < text.size()) lines.emplace_back(text.substr(start));
      return Value::list(std::move(lines));
    });
  }
  if (name == "isdigit" || name == "isalpha" || name == "isspace" || name == "isalnum" ||
      name == "islower" || name == "isupper") {
    return fn([text, name](Interpreter&, CallArgs&) {
      const auto cps = code_points(text);
      if (cps.empty()) return Value(false);
      bool cased = false;
      for (const char32_t c : cps) {
        const auto cp = static_cast<utf8proc_int32_t>(c);
        const bool digit = utf8proc_category(cp) == UTF8PROC_CATEGORY_ND;
        if (name == "isdigit" && !digit) return Value(false);
        if (name == "isalpha" && !is_alpha(c)) return Value(false);
        if (name == "isalnum" && !is_alpha(c) && !digit) return Value(false);
        if (name == "isspace" && !is_python_space(c)) return Value(false);
        if (name == "islower" && utf8proc_toupper(cp) != cp && utf8proc_tolower(cp) == cp)
          cased = true;
        if (name == "islower" && utf8proc_tolower(cp) != cp) return Value(false);
        if (name == "isupper" && utf8proc_tolower(cp) != cp && utf8proc_toupper(cp) == cp)
          cased = true;
        if (name == "isupper" && utf8proc_toupper(cp) != cp) return Value(false);
      }
      return Value(name == "islower" || name == "isupper" ? cased : true);
    });
  }
  return Value::undefined(name);
}

Value dict_method(const Value& dict, const std::string& name) {
  if (name == "items" || name == "keys" || name == "values") {
    return bound(name, [dict, name](Interpreter&, CallArgs&) {
      std::vector<Value> out;
      for (const auto& [k, v] : dict.as_dict().items) {
        if (name == "items") out.push_back(Value::list({Value(k), v}, true));
        if (name == "keys") out.emplace_back(k);
        if (name == "values") out.push_back(v);
      }
      return Value::list(std::move(out));
    });
  }
  if (name == "get") {
    return bound(name, [dict](Interpreter&, CallArgs& a) {
      const Value* key = a.get(0, "key");
      if (key == nullptr) type_error("get() takes at least 1 argument");
      if (key->is_string()) {
        if (const Value* v = dict.as_dict().find(key->as_string())) return *v;
      }
      const Value* fallback = a.get(1, "default");
      return fallback ? *fallback : Value::none();
    });
  }
  return Value::undefined(name);
}

std::vector<Value> items_of(const Value& v) {
  std::vector<Value> out;
  if (v.is_undefined()) return out;
  if (!v.is_dict()) type_error("items: expected a mapping, got " + v.type_name());
  for (const auto& [k, item] : v.as_dict().items)
    out.push_back(Value::list({Value(k), item}, true));
  return out;
}

// The attribute `path` (dotted, integers index lists) of `v`, as jinja2's make_attrgetter.
Value attribute_path(const Value& v, const std::string& path) {
  Value current = v;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    const std::string part = path.substr(start, dot - start);
    const bool digits = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    current = digits ? get_item(current, Value(static_cast<std::int64_t>(std::stoll(part))))
                     : get_item(current, Value(part));
    start = dot + 1;
  }
  return current;
}

// select/reject/selectattr/rejectattr: keep items whose test result equals `keep`.
Value select_items(Interpreter&, const Value& input, CallArgs& args, bool keep, bool by_attribute) {
  std::size_t next = 0;
  std::string attribute;
  if (by_attribute) {
    const Value* a = args.get(next++, "attribute");
    if (a == nullptr) type_error("selectattr/rejectattr: missing attribute name");
    attribute = need_string(*a, "selectattr");
  }
  std::string test;
  CallArgs test_args;
  if (next < args.positional.size()) {
    test = need_string(args.positional[next++], "select: test name");
    if (!is_test(test)) type_error("no test named '" + test + "'");
    test_args.positional.assign(args.positional.begin() + static_cast<long>(next),
                                args.positional.end());
  }
  std::vector<Value> out;
  for (const auto& item : iterate(input)) {
    const Value subject = by_attribute ? attribute_path(item, attribute) : item;
    const bool result = test.empty() ? subject.truthy() : apply_test(test, subject, test_args);
    if (result == keep) out.push_back(item);
  }
  return Value::list(std::move(out));
}

Value sort_items(const Value& input, const CallArgs& args) {
  std::vector<Value> items = iterate(input);
  const bool reverse = optional_bool(args, 0, "reverse", false);
  const bool case_sensitive = optional_bool(args, 1, "case_sensitive", false);
  const Value* attr = args.get(2, "attribute");
  const auto key = [&](const Value& v) {
    Value k = attr && !attr->is_none() ? attribute_path(v, need_string(*attr, "sort")) : v;
    if (!case_sensitive && k.is_string()) k = Value(map_case(k.as_string(), false));
    return k;
  };
  std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
    return reverse ? less_than(key(b), key(a)) : less_than(key(a), key(b));
  });
  return Value::list(std::move(items));
}

std::string indent(const std::string& text, const CallArgs& args) {
  const Value* width_value = args.get(0, "width");
  const std::string pad =
      width_value && width_value->is_string()
          ? width_value->as_string()
          : std::string(static_cast<std::size_t>(optional_int(args, 0, "width", 4)), ' ');
  const bool first = optional_bool(args, 1, "first", false);
  const bool blank = optional_bool(args, 2, "blank", false);
  std::string out;
  std::size_t start = 0;
  bool first_line = true;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    const std::string line = text.substr(start, end - start);
    if ((!first_line || first) && (blank || !line.empty())) out += pad;
    out += line;
    if (last) break;
    out += '\n';
    start = end + 1;
    first_line = false;
  }
  return out;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

Value to_json_filter(const Value& input, const CallArgs& args) {
  const Value* indent_value = args.get(0, "indent");
  const int indent_width =
      indent_value && !indent_value->is_none() ? static_cast<int>(indent_value->to_int()) : -1;
  std::string item_sep = indent_width >= 0 ? "," : ", ";
  std::string key_sep = ": ";
  if (const Value* seps = args.get(99, "separators");
      seps && seps->is_list() && seps->as_list().items.size() == 2) {
    item_sep = need_string(seps->as_list().items[0], "tojson separators");
    key_sep = need_string(seps->as_list().items[1], "tojson separators");
  }
  return Value(input.to_json(indent_width, optional_bool(args, 99, "ensure_ascii", false),
                             optional_bool(args, 99, "sort_keys", false), item_sep, key_sep));
}

Value first_or_last(const Value& input, bool first) {
  if (input.is_undefined()) return Value::undefined(first ? "first" : "last");
  if (input.is_string()) {
    const auto cps = code_points(input.as_string());
    if (cps.empty()) return Value::undefined(first ? "first" : "last");
    return Value(from_code_points({first ? cps.front() : cps.back()}));
  }
  const auto items = iterate(input);
  if (items.empty()) return Value::undefined(first ? "first" : "last");
  return first ? items.front() : items.back();
}

Value number_filter(const Value& input, const CallArgs& args, bool integer) {
  const Value* fallback = args.get(0, "default");
  const Value dflt = fallback ? *fallback : (integer ? Value(0) : Value(0.0));
  if (input.is_int() || input.is_bool())
    return integer ? Value(input.to_int()) : Value(input.to_double());
  if (input.is_real()) return integer ? Value(static_cast<std::int64_t>(input.as_real())) : input;
  if (input.is_string()) {
    try {
      std::size_t used = 0;
      const std::string s = strip(input.as_string(), nullptr, true, true);
      if (integer) {
        const std::int64_t v =
            std::stoll(s, &used, static_cast<int>(optional_int(args, 1, "base", 10)));
        if (used == s.size()) return Value(v);
        const double d = std::stod(s, &used);
        if (used == s.size()) return Value(static_cast<std::int64_t>(d));
      } else {
        const double d = std::stod(s, &used);
        if (used == s.size()) return Value(d);
      }
    } catch (const std::exception&) {
    }
  }
  return dflt;
}

const std::set<std::string, std::less<>>& filter_names() {
  static const std::set<std::string, std::less<>> names = {
      "abs",        "capitalize", "count",    "d",       "default", "dictsort", "e",
      "escape",     "first",      "float",    "indent",  "int",     "items",    "join",
      "last",       "length",     "list",     "lower",   "map",     "max",      "min",
      "reject",     "rejectattr", "replace",  "reverse", "round",   "safe",     "select",
      "selectattr", "sort",       "string",   "sum",     "title",   "tojson",   "trim",
      "unique",     "upper",      "wordcount"};
  return names;
}

const std::set<std::string, std::less<>>& test_names() {
  static const std::set<std::string, std::less<>> names = {
      "boolean", "callable", "defined",     "divisibleby", "eq",        "equalto",
      "==",      "even",     "false",       "float",       "ge",        ">=",
      "gt",      ">",        "greaterthan", "in",          "integer",   "iterable",
      "le",      "<=",       "lower",       "lt",          "<",         "lessthan",
      "mapping", "ne",       "!=",          "none",        "number",    "odd",
      "sameas",  "sequence", "string",      "true",        "undefined", "upper"};
  return names;
}

// a + b for strings and lists, bounded by kMaxOutputBytes characters or items (a template
// doubling a string 64 times exhausted the memory).
void require_joinable(std::size_t a, std::size_t b) {
  if (a + b > kMaxOutputBytes) {
    type_error("concatenation too big: more than " + std::to_string(kMaxOutputBytes) +
               " characters or items");
  }
}

}  // namespace

bool is_filter(std::string_view name) { return filter_names().count(name) > 0; }
bool is_test(std::string_view name) { return test_names().count(name) > 0; }

std::vector<Value> iterate(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::undefined:
      return {};
    case Value::Kind::list:
      return value.as_list().items;
    case Value::Kind::dict: {
      std::vector<Value> keys;
      for (const auto& [k, v] : value.as_dict().items) keys.emplace_back(k);
      return keys;
    }
    case Value::Kind::string: {
      std::vector<Value> chars;
      for (const char32_t c : code_points(value.as_string()))
        chars.emplace_back(from_code_points({c}));
      return chars;
    }
    default:
      type_error("'" + value.type_name() + "' object is not iterable");
  }
}

Value apply_filter(Interpreter& interpreter, const std::string& name, const Value& input,
                   CallArgs& args) {
  if (name == "default" || name == "d") {
    const Value* fallback = args.get(0, "default_value");
    const bool boolean = optional_bool(args, 1, "boolean", false);
    if (input.is_undefined() || (boolean && !input.truthy()))
      return fallback ? *fallback : Value("");
    return input;
  }
  if (name == "length" || name == "count") return Value(length(input));
  if (name == "tojson") return to_json_filter(input, args);
  if (name == "trim") return Value(strip(input.str(), args.get(0, "chars"), true, true));
  if (name == "string") return Value(input.str());
  if (name == "safe") return input;
  if (name == "e" || name == "escape") return Value(html_escape(input.str()));
  if (name == "upper" || name == "lower") return Value(map_case(input.str(), name == "upper"));
  if (name == "title") return Value(title(input.str()));
  if (name == "capitalize") return Value(capitalize(input.str()));
  if (name == "list") return Value::list(iterate(input));
  if (name == "first" || name == "last") return first_or_last(input, name == "first");
  if (name == "items") return Value::list(items_of(input));
  if (name == "replace") {
    const Value* old = args.get(0, "old");
    const Value* with = args.get(1, "new");
    if (old == nullptr || with == nullptr) type_error("replace: needs old and new");
    return Value(replace(input.str(), need_string(*old, "replace"), need_string(*with, "replace"),
                         optional_int(args, 2, "count", -1)));
  }
  if (name == "join") {
    const Value* sep = args.get(0, "d");
    const Value* attr = args.get(1, "attribute");
    std::string out;
    bool first = true;
    for (const auto& item : iterate(input)) {
      if (!first) out += sep ? sep->str() : "";
      out += (attr && !attr->is_none() ? attribute_path(item, need_string(*attr, "join")) : item)
                 .str();
      first = false;
    }
    return Value(out);
  }
  if (name == "select" || name == "reject")
    return select_items(interpreter, input, args, name == "select", false);
  if (name == "selectattr" || name == "rejectattr") {
    return select_items(interpreter, input, args, name == "selectattr", true);
  }
  if (name == "map") {
    std::vector<Value> out;
    const Value* attr = args.get(99, "attribute");
    const Value* fallback = args.get(99, "default");
    for (const auto& item : iterate(input)) {
      if (attr) {
        Value v = attribute_path(item, need_string(*attr, "map"));
        out.push_back(v.is_undefined() && fallback ? *fallback : v);
      } else {
        if (args.positional.empty()) type_error("map: needs a filter name or attribute=");
        const std::string filter = need_string(args.positional[0], "map");
        if (!is_filter(filter)) type_error("no filter named '" + filter + "'");
        CallArgs rest;
        rest.positional.assign(args.positional.begin() + 1, args.positional.end());
        out.push_back(apply_filter(interpreter, filter, item, rest));
      }
    }
    return Value::list(std::move(out));
  }
  if (name == "reverse") {
    if (input.is_string()) {
      auto cps = code_points(input.as_string());
      std::reverse(cps.begin(), cps.end());
      return Value(from_code_points(cps));
    }
    auto items = iterate(input);
    std::reverse(items.begin(), items.end());
    return Value::list(std::move(items));
  }
  if (name == "sort") return sort_items(input, args);
  if (name == "dictsort") {
    auto items = items_of(input);
    std::stable_sort(items.begin(), items.end(), [](const Value& a, const Value& b) {
      return map_case(a.as_list().items[0].as_string(), false) <
             map_case(b.as_list().items[0].as_string(), false);
    });
    return Value::list(std::move(items));
  }
  if (name == "unique") {
    std::vector<Value> out;
    for (const auto& item : iterate(input)) {
      if (std::none_of(out.begin(), out.end(), [&](const Value& o) { return o.equals(item); }))
        out.push_back(item);
    }
    return Value::list(std::move(out));
  }
  if (name == "min" || name == "max") {
    const auto items = iterate(input);
    if (items.empty()) return Value::undefined(name);
    Value best = items[0];
    for (const auto& item : items) {
      if (name == "min" ? less_than(item, best) : less_than(best, item)) best = item;
    }
    return best;
  }
  if (name == "sum") {
    const Value* attr = args.get(0, "attribute");
    const Value* start = args.get(1, "start");
    Value total = start ? *start : Value(0);
    for (const auto& item : iterate(input)) {
      total = arithmetic(
          "+", total,
          attr && !attr->is_none() ? attribute_path(item, need_string(*attr, "sum")) : item);
    }
    return total;
  }
  if (name == "abs") {
    if (input.is_real()) return Value(std::fabs(input.as_real()));
    return Value(static_cast<std::int64_t>(std::llabs(input.to_int())));
  }
  if (name == "round") {
    const double scale = std::pow(10.0, static_cast<double>(optional_int(args, 0, "precision", 0)));
    const Value* method = args.get(1, "method");
    const std::string m = method ? need_string(*method, "round") : "common";
    const double x = input.to_double() * scale;
    const double r = m == "ceil" ? std::ceil(x) : m == "floor" ? std::floor(x) : std::round(x);
    return Value(r / scale);
  }
  if (name == "int" || name == "float") {
    if (input.is_undefined()) type_error("'" + input.undefined_name() + "' is undefined");
    return number_filter(input, args, name == "int");
  }
  if (name == "indent") return Value(indent(input.str(), args));
  if (name == "wordcount")
    return Value(static_cast<std::int64_t>(split(input.str(), nullptr, -1).as_list().items.size()));
  type_error("no filter named '" + name + "'");
}

bool apply_test(const std::string& name, const Value& v, const CallArgs& args) {
  const auto arg = [&]() -> const Value& {
    if (args.positional.empty()) type_error("test '" + name + "' needs an argument");
    return args.positional[0];
  };
  if (name == "defined") return !v.is_undefined();
  if (name == "undefined") return v.is_undefined();
  if (name == "none") return v.is_none();
  if (name == "boolean") return v.is_bool();
  if (name == "true") return v.is_bool() && v.as_bool();
  if (name == "false") return v.is_bool() && !v.as_bool();
  if (name == "integer") return v.is_int();
  if (name == "float") return v.is_real();
  if (name == "number") return v.is_number();
  if (name == "string") return v.is_string();
  if (name == "mapping") return v.is_dict();
  if (name == "iterable") return v.is_undefined() || v.is_string() || v.is_list() || v.is_dict();
  if (name == "sequence") return v.is_string() || v.is_list() || v.is_dict();
  if (name == "callable") return v.is_function();
  if (name == "odd" || name == "even") return (v.to_int() % 2 != 0) == (name == "odd");
  if (name == "divisibleby") return v.to_int() % arg().to_int() == 0;
  if (name == "lower") return v.is_string() && map_case(v.as_string(), false) == v.as_string();
  if (name == "upper") return v.is_string() && map_case(v.as_string(), true) == v.as_string();
  if (name == "eq" || name == "equalto" || name == "==") return v.equals(arg());
  if (name == "ne" || name == "!=") return !v.equals(arg());
  if (name == "lt" || name == "<" || name == "lessthan") return less_than(v, arg());
  if (name == "gt" || name == ">" || name == "greaterthan") return less_than(arg(), v);
  if (name == "le" || name == "<=") return !less_than(arg(), v);
  if (name == "ge" || name == ">=") return !less_than(v, arg());
  if (name == "in") return contains(arg(), v);
  if (name == "sameas") {
    const Value& o = arg();
    if (v.kind() != o.kind()) return false;
    if (v.is_none()) return true;
    if (v.is_bool()) return v.as_bool() == o.as_bool();
    if (v.is_list()) return &v.as_list() == &o.as_list();
    if (v.is_dict()) return &v.as_dict() == &o.as_dict();
    return v.equals(o);
  }
  type_error("no test named '" + name + "'");
}

Value get_attribute(const Value& object, const std::string& name) {
  switch (object.kind()) {
    case Value::Kind::dict: {
      const DictData& dict = object.as_dict();
      if (!dict.is_namespace) {
        Value method = dict_method(object, name);
        if (!method.is_undefined()) return method;
      }
      if (const Value* v = dict.find(name)) return *v;
      return Value::undefined(name);
    }
    case Value::Kind::string:
      return string_method(object.as_string(), name);
    case Value::Kind::list:
      if (name == "index" || name == "count") {
        return bound(name, [object, name](Interpreter&, CallArgs& a) {
          if (a.positional.empty()) type_error(name + "() takes exactly one argument");
          const auto& items = object.as_list().items;
          std::int64_t n = 0;
          for (std::size_t i = 0; i < items.size(); ++i) {
            if (!items[i].equals(a.positional[0])) continue;
            if (name == "index") return Value(static_cast<std::int64_t>(i));
            ++n;
          }
          if (name == "index") type_error("list.index(x): x not in list");
          return Value(n);
        });
      }
      return Value::undefined(name);
    default:
      return Value::undefined(name);
  }
}

Value get_item(const Value& object, const Value& key) {
  if (object.is_list() && (key.is_int() || key.is_bool())) {
    const auto& items = object.as_list().items;
    std::int64_t i = key.to_int();
    if (i < 0) i += static_cast<std::int64_t>(items.size());
    if (i < 0 || i >= static_cast<std::int64_t>(items.size()))
      return Value::undefined("[" + key.str() + "]");
    return items[static_cast<std::size_t>(i)];
  }
  if (object.is_string() && (key.is_int() || key.is_bool())) {
    const auto cps = code_points(object.as_string());
    std::int64_t i = key.to_int();
    if (i < 0) i += static_cast<std::int64_t>(cps.size());
    if (i < 0 || i >= static_cast<std::int64_t>(cps.size()))
      return Value::undefined("[" + key.str() + "]");
    return Value(from_code_points({cps[static_cast<std::size_t>(i)]}));
  }
  if (object.is_dict() && key.is_string()) {
    if (const Value* v = object.as_dict().find(key.as_string())) return *v;
  }
  if (key.is_string()) return get_attribute(object, key.as_string());
  return Value::undefined("[" + key.repr() + "]");
}

Value slice(const Value& object, const Value& start, const Value& stop, const Value& step) {
  const std::int64_t s = step.is_none() || step.is_undefined() ? 1 : step.to_int();
  if (s == 0) type_error("slice step cannot be zero");
  std::vector<Value> items;
  std::vector<char32_t> cps;
  std::int64_t n = 0;
  if (object.is_string()) {
    cps = code_points(object.as_string());
    n = static_cast<std::int64_t>(cps.size());
  } else if (object.is_list()) {
    items = object.as_list().items;
    n = static_cast<std::int64_t>(items.size());
  } else {
    type_error("'" + object.type_name() + "' object is not subscriptable");
  }
  const std::int64_t lower = s > 0 ? 0 : -1, upper = s > 0 ? n : n - 1;
  const auto bound_index = [&](const Value& v, std::int64_t fallback) {
    if (v.is_none() || v.is_undefined()) return fallback;
    std::int64_t i = v.to_int();
    return i < 0 ? std::max(i + n, lower) : std::min(i, upper);
  };
  const std::int64_t from = bound_index(start, s > 0 ? lower : upper);
  const std::int64_t to = bound_index(stop, s > 0 ? upper : lower);
  std::vector<Value> out_items;
  std::vector<char32_t> out_cps;
  for (std::int64_t i = from; s > 0 ? i < to : i > to; i += s) {
    if (object.is_string()) {
      out_cps.push_back(cps[static_cast<std::size_t>(i)]);
    } else {
      out_items.push_back(items[static_cast<std::size_t>(i)]);
    }
  }
  if (object.is_string()) return Value(from_code_points(out_cps));
  return Value::list(std::move(out_items), object.as_list().tuple);
}

Value global(const std::string& name) {
  if (name == "range") {
    return bound(name, [](Interpreter&, CallArgs& a) {
      std::int64_t start = 0, stop = 0, step = 1;
      if (a.positional.size() == 1) {
        stop = a.positional[0].to_int();
      } else if (a.positional.size() >= 2) {
        start = a.positional[0].to_int();
        stop = a.positional[1].to_int();
        if (a.positional.size() >= 3) step = a.positional[2].to_int();
      } else {
        type_error("range expected at least 1 argument");
      }
      if (step == 0) type_error("range() arg 3 must not be zero");
      const __int128 span =
          step > 0 ? static_cast<__int128>(stop) - start : static_cast<__int128>(start) - stop;
      const __int128 magnitude = step > 0 ? step : -static_cast<__int128>(step);
      if (span > 0 && (span + magnitude - 1) / magnitude > kMaxRange) {
        type_error("range too big: more than " + std::to_string(kMaxRange) +
                   " items (the limit of jinja2's sandbox)");
      }
      std::vector<Value> out;
      for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.emplace_back(i);
      return Value::list(std::move(out));
    });
  }
  if (name == "namespace" || name == "dict") {
    const bool ns = name == "namespace";
    return bound(name, [ns](Interpreter&, CallArgs& a) {
      Value result = Value::dict();
      for (const auto& p : a.positional) {
        if (!p.is_dict()) type_error("namespace/dict: positional argument must be a mapping");
        for (const auto& [k, v] : p.as_dict().items) result.as_dict().set(k, v);
      }
      for (const auto& [k, v] : a.keyword) result.as_dict().set(k, v);
      result.as_dict().is_namespace = ns;
      return result;
    });
  }
  if (name == "raise_exception") {
    return bound(name, [](Interpreter&, CallArgs& a) -> Value {
      throw Error("raise_exception: " +
                  (a.positional.empty() ? std::string() : a.positional[0].str()));
    });
  }
  if (name == "strftime_now") {
    return bound(name, [](Interpreter&, CallArgs& a) {
      if (a.positional.empty()) type_error("strftime_now(format) needs a format");
      const std::time_t now = std::time(nullptr);
      std::tm local{};
      localtime_r(&now, &local);
      char buffer[256];
      const std::size_t n =
          std::strftime(buffer, sizeof(buffer), a.positional[0].str().c_str(), &local);
      return Value(std::string(buffer, n));
    });
  }
  return Value::undefined(name);
}

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
  if (op == "~") {
    std::string left = a.str(), right = b.str();
    require_joinable(left.size(), right.size());
    return Value(left + right);
  }
  for (const Value* v : {&a, &b}) {
    if (v->is_undefined()) type_error("'" + v->undefined_name() + "' is undefined");
  }
  const auto unsupported = [&]() -> Value {
    type_error("unsupported operand type(s) for " + op + ": '" + a.type_name() + "' and '" +
               b.type_name() + "'");
  };
  if (a.is_number() && b.is_number()) {
    const bool ints = !a.is_real() && !b.is_real();
    if (ints && (op == "+" || op == "-" || op == "*")) {
      std::int64_t r = 0;
      const bool overflow = op == "+"   ? __builtin_add_overflow(a.to_int(), b.to_int(), &r)
                            : op == "-" ? __builtin_sub_overflow(a.to_int(), b.to_int(), &r)
                                        : __builtin_mul_overflow(a.to_int(), b.to_int(), &r);
      if (overflow) overflow_error();
      return Value(r);
    }
    if (op == "+") return Value(a.to_double() + b.to_double());
    if (op == "-") return Value(a.to_double() - b.to_double());
    if (op == "*") return Value(a.to_double() * b.to_double());
    if (op == "/") {
      if (b.to_double() == 0) type_error("division by zero");
      return Value(a.to_double() / b.to_double());
    }
    if (op == "//" || op == "%") {
      if (b.to_double() == 0) type_error("integer division or modulo by zero");
      if (ints) {
        const std::int64_t x = a.to_int(), y = b.to_int();
        std::int64_t q = x / y;
        if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
        return op == "//" ? Value(q) : Value(x - q * y);
      }
      const double x = a.to_double(), y = b.to_double();
      const double q = std::floor(x / y);
      return op == "//" ? Value(q) : Value(x - q * y);
    }
    if (op == "**") {
      if (ints && b.to_int() >= 0) {
        // Exponentiation by squaring: at most 64 steps, overflow reported.
        std::int64_t r = 1, base = a.to_int();
        for (std::int64_t e = b.to_int(); e > 0; e >>= 1) {
          if ((e & 1) && __builtin_mul_overflow(r, base, &r)) overflow_error();
          if (e > 1 && __builtin_mul_overflow(base, base, &base)) overflow_error();
        }
        return Value(r);
      }
      return Value(std::pow(a.to_double(), b.to_double()));
    }
    return unsupported();
  }
  if (op == "+" && a.is_string() && b.is_string()) {
    require_joinable(a.as_string().size(), b.as_string().size());
    return Value(a.as_string() + b.as_string());
  }
  if (op == "+" && a.is_list() && b.is_list() && a.as_list().tuple == b.as_list().tuple) {
    require_joinable(a.as_list().items.size(), b.as_list().items.size());
    std::vector<Value> items = a.as_list().items;
    items.insert(items.end(), b.as_list().items.begin(), b.as_list().items.end());
    return Value::list(std::move(items), a.as_list().tuple);
  }
  if (op == "*" && (a.is_string() || a.is_list()) && (b.is_int() || b.is_bool())) {
    const std::int64_t n = b.to_int();
    const std::size_t unit = a.is_string() ? a.as_string().size() : a.as_list().items.size();
    if (n > 0 && unit > 0 && static_cast<std::uint64_t>(n) > kMaxOutputBytes / unit) {
      type_error("repetition too big: more than " + std::to_string(kMaxOutputBytes) +
                 " characters or items");
    }
    if (a.is_string()) {
      std::string out;
      for (std::int64_t i = 0; i < n; ++i) out += a.as_string();
      return Value(out);
    }
    std::vector<Value> items;
    for (std::int64_t i = 0; i < n; ++i)
      items.insert(items.end(), a.as_list().items.begin(), a.as_list().items.end());
    return Value::list(std::move(items), a.as_list().tuple);
  }
  if (op == "*" && (b.is_string() || b.is_list()) && (a.is_int() || a.is_bool()))
    return arithmetic(op, b, a);
  return unsupported();
}

bool less_than(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_real() || b.is_real()) return a.to_double() < b.to_double();
    return a.to_int() < b.to_int();
  }
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();
  if (a.is_list() && b.is_list()) {
    const auto& x = a.as_list().items;
    const auto& y = b.as_list().items;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!x[i].equals(y[i])) return less_than(x[i], y[i]);
    }
    return x.size() < y.size();
  }
  type_error("'<' not supported between instances of '" + a.type_name() + "' and '" +
             b.type_name() + "'");
}

bool contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Value::Kind::undefined:
      return false;
    case Value::Kind::string:
      if (!item.is_string())
        type_error("'in <string>' requires string as left operand, not " + item.type_name());
      return container.as_string().find(item.as_string()) != std::string::npos;
    case Value::Kind::list:
      for (const auto& v : container.as_list().items) {
        if (v.equals(item)) return true;
      }
      return false;
    case Value::Kind::dict:
      return item.is_string() && container.as_dict().find(item.as_string()) != nullptr;
    default:
      type_error("argument of type '" + container.type_name() + "' is not iterable");
  }
}

}  // namespace verlpp::tokenizer::jinja
