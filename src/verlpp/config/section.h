// A map of the configuration tree with its dotted path and typed getters whose errors name the
// key: "data.train_batch_size: expected an integer, got a string 'abc'". Used by the section
// binders (sections.cpp, sft_sections.cpp).
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "verlpp/config/node.h"
#include "verlpp/core/error.h"

namespace verlpp::config {

// The dotted paths the binders read: each getter's key, and for node() the section's own path
// (its whole subtree). unread_keys.h compares them with the keys a user set.
using KeyReads = std::set<std::string>;

// A map in the tree and its dotted path, with typed, error-reporting getters that record what
// they read in `reads` when one is given (children share it).
class Section {
 public:
  Section(const Node* node, std::string path, KeyReads* reads = nullptr)
      : node_(node), path_(std::move(path)), reads_(reads) {}

  bool has(const std::string& key) const { return node_->find(key) != nullptr; }
  // Present and not null (recorded as read).
  bool is_set(const std::string& key) const { return has(key) && !get(key).is_null(); }
  Section child(const std::string& key) const {
    const Node& value = lookup(key);
    if (!value.is_map()) fail(key, "expected a map, got " + value.describe());
    return Section(&value, name(key), reads_);
  }
  std::int64_t integer(const std::string& key) const { return to_integer(key, get(key)); }
  std::optional<std::int64_t> opt_integer(const std::string& key) const {
    const Node& value = get(key);
    if (value.is_null()) return std::nullopt;
    return to_integer(key, value);
  }
  double real(const std::string& key) const { return to_real(key, get(key)); }
  std::optional<double> opt_real(const std::string& key) const {
    const Node& value = get(key);
    if (value.is_null()) return std::nullopt;
    return to_real(key, value);
  }
  bool boolean(const std::string& key) const {
    const Node& value = get(key);
    if (value.kind() != Node::Kind::boolean)
      fail(key, "expected true or false, got " + value.describe());
    return value.as_bool();
  }
  std::optional<bool> opt_boolean(const std::string& key) const {
    if (get(key).is_null()) return std::nullopt;
    return boolean(key);
  }
  // opt_boolean that also takes the string none (or None) for null, as verl's YAML once wrote
  // data.enable_thinking_default.
  std::optional<bool> opt_boolean_or_none(const std::string& key) const {
    const Node& value = get(key);
    if (value.kind() == Node::Kind::string &&
        (value.as_string() == "none" || value.as_string() == "None")) {
      return std::nullopt;
    }
    return opt_boolean(key);
  }
  std::string string(const std::string& key) const {
    const Node& value = get(key);
    if (value.kind() != Node::Kind::string) fail(key, "expected a string, got " + value.describe());
    return value.as_string();
  }
  std::optional<std::string> opt_string(const std::string& key) const {
    if (get(key).is_null()) return std::nullopt;
    return string(key);
  }
  // A string, or a number as text (e.g. a threshold given either way); null gives nullopt.
  std::optional<std::string> opt_text(const std::string& key) const {
    const Node& value = get(key);
    if (value.is_null()) return std::nullopt;
    if (value.kind() == Node::Kind::string) return value.as_string();
    if (value.kind() == Node::Kind::integer) return std::to_string(value.as_int());
    if (value.kind() == Node::Kind::real) return real_text(value.as_real());
    fail(key, "expected a string or a number, got " + value.describe());
  }
  // A string or a list of strings; null gives an empty list.
  std::vector<std::string> strings(const std::string& key) const {
    const Node& value = get(key);
    if (value.is_null()) return {};
    if (value.kind() == Node::Kind::string) return {value.as_string()};
    if (!value.is_list())
      fail(key, "expected a string or a list of strings, got " + value.describe());
    std::vector<std::string> out;
    for (const auto& item : value.items()) {
      if (item.kind() != Node::Kind::string)
        fail(key, "expected a list of strings, found " + item.describe());
      out.push_back(item.as_string());
    }
    return out;
  }
  std::vector<double> reals(const std::string& key) const {
    const Node& value = get(key);
    if (!value.is_list()) fail(key, "expected a list of numbers, got " + value.describe());
    std::vector<double> out;
    for (const auto& item : value.items()) out.push_back(to_real(key, item));
    return out;
  }
  // A list of numbers; null gives an empty list.
  std::vector<double> opt_reals(const std::string& key) const {
    if (get(key).is_null()) return {};
    return reals(key);
  }
  // Records `key` as read without reading it here: a layer that binds its keys from the tree
  // itself (reward/reward_settings.cpp) is still known to the unread-key audit.
  void mark_read(const std::string& key) const { record(name(key)); }
  const Node& node() const {
    record(path_);
    return *node_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const Node& get(const std::string& key) const {
    const Node& value = lookup(key);
    record(name(key));
    return value;
  }

  void record(const std::string& path) const {
    if (reads_ != nullptr) reads_->insert(path);
  }

  const Node& lookup(const std::string& key) const {
    const Node* value = node_->find(key);
    if (value == nullptr) fail(key, "required key is absent (was it deleted with ~?)");
    if (value->is_missing()) {
      fail(key, "required value is not set (??? in the defaults); set it, e.g. " + name(key) +
                    "=<value>");
    }
    return *value;
  }

  std::int64_t to_integer(const std::string& key, const Node& value) const {
    if (value.kind() == Node::Kind::integer) return value.as_int();
    if (value.kind() == Node::Kind::string) {
      const Node typed = plain_scalar(value.as_string());
      if (typed.kind() == Node::Kind::integer) return typed.as_int();
      if (all_digits(value.as_string())) {
        fail(key, "expected an integer, got " + value.as_string() +
                      ", outside the 64-bit range (at most 9223372036854775807)");
      }
    }
    fail(key, "expected an integer, got " + value.describe());
  }

  // An optional sign, then only decimal digits: an integer too large for int64 reads as a string.
  static bool all_digits(const std::string& text) {
    const std::size_t start = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
    return text.size() > start && text.find_first_not_of("0123456789", start) == std::string::npos;
  }

  double to_real(const std::string& key, const Node& value) const {
    if (value.kind() == Node::Kind::real) return value.as_real();
    if (value.kind() == Node::Kind::integer) return static_cast<double>(value.as_int());
    if (value.kind() == Node::Kind::string) {
      const Node typed = plain_scalar(value.as_string());
      if (typed.kind() == Node::Kind::real) return typed.as_real();
      if (typed.kind() == Node::Kind::integer) return static_cast<double>(typed.as_int());
    }
    fail(key, "expected a number, got " + value.describe());
  }

  // The shortest text that reads back as `value`.
  static std::string real_text(double value) {
    std::array<char, 32> buffer{};
    const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
    return std::string(buffer.data(), end);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(name(key) + ": " + what);
  }

  const Node* node_;
  std::string path_;
  KeyReads* reads_;
};

}  // namespace verlpp::config
