// The configuration tree: what verl keeps in an OmegaConf DictConfig. Maps keep insertion order so
// that printed configs read like verl's YAML.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace verlpp::config {

class Node;
using NodeList = std::vector<Node>;
using NodeMap = std::vector<std::pair<std::string, Node>>;

class Node {
 public:
  // `missing` is OmegaConf's "???": a required value nobody has set yet.
  enum class Kind { null, missing, boolean, integer, real, string, list, map };

  Node() = default;
  explicit Node(bool value) : value_(value) {}
  explicit Node(std::int64_t value) : value_(value) {}
  explicit Node(int value) : value_(static_cast<std::int64_t>(value)) {}
  explicit Node(double value) : value_(value) {}
  explicit Node(std::string value) : value_(std::move(value)) {}
  explicit Node(const char* value) : value_(std::string(value)) {}
  static Node missing();
  static Node list(NodeList items = {});
  static Node map(NodeMap entries = {});

  Kind kind() const;
  bool is_map() const { return kind() == Kind::map; }
  bool is_list() const { return kind() == Kind::list; }
  bool is_null() const { return kind() == Kind::null; }
  bool is_missing() const { return kind() == Kind::missing; }
  bool is_scalar() const { return !is_map() && !is_list(); }

  // Accessors for the kind the node holds; calling the wrong one is a programming error
  // (std::bad_variant_access).
  bool as_bool() const { return std::get<bool>(value_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(value_); }
  double as_real() const { return std::get<double>(value_); }
  const std::string& as_string() const { return std::get<std::string>(value_); }
  const NodeList& items() const { return std::get<NodeList>(value_); }
  NodeList& items() { return std::get<NodeList>(value_); }
  const NodeMap& entries() const { return std::get<NodeMap>(value_); }
  NodeMap& entries() { return std::get<NodeMap>(value_); }

  // Map access; find returns nullptr when the key is absent or this is not a map.
  const Node* find(std::string_view key) const;
  Node* find(std::string_view key);
  Node& set(const std::string& key, Node value);
  bool erase(std::string_view key);

  // "an integer", "a string 'abc'", "a map", ... for error messages.
  std::string describe() const;

 private:
  struct Missing {};
  std::variant<std::monostate, Missing, bool, std::int64_t, double, std::string, NodeList, NodeMap>
      value_;
};

// Types a plain (unquoted) scalar as OmegaConf does: null/~ -> null, ??? -> missing,
// true/false in any case -> bool, integers (with optional sign and _ separators), floats
// (1.5, 1e-6, .5, inf, nan) -> real, anything else -> string.
Node plain_scalar(std::string_view text);

// Splits "a.b.c" into {"a","b","c"}. An empty path gives {}.
std::vector<std::string> split_path(std::string_view path);

// The node at a dotted path, or nullptr.
const Node* find_path(const Node& root, std::string_view path);

// Every path in the tree (maps only; list items are not addressed), parents before children.
std::vector<std::string> all_paths(const Node& root);

// Paths of the scalars and lists under `node` (empty maps count as leaves), prefixed by `prefix`.
void leaf_paths(const Node& node, const std::string& prefix, std::vector<std::string>& out);

}  // namespace verlpp::config
