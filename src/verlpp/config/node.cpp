#include "verlpp/config/node.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

namespace verlpp::config {

Node Node::missing() {
  Node node;
  node.value_ = Missing{};
  return node;
}

Node Node::list(NodeList items) {
  Node node;
  node.value_ = std::move(items);
  return node;
}

Node Node::map(NodeMap entries) {
  Node node;
  node.value_ = std::move(entries);
  return node;
}

Node::Kind Node::kind() const { return static_cast<Kind>(value_.index()); }

const Node* Node::find(std::string_view key) const {
  if (!is_map()) return nullptr;
  for (const auto& [name, child] : entries()) {
    if (name == key) return &child;
  }
  return nullptr;
}

Node* Node::find(std::string_view key) {
  return const_cast<Node*>(static_cast<const Node*>(this)->find(key));
}

Node& Node::set(const std::string& key, Node value) {
  if (Node* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  entries().emplace_back(key, std::move(value));
  return entries().back().second;
}

bool Node::erase(std::string_view key) {
  if (!is_map()) return false;
  auto& map = entries();
  const auto it =
      std::find_if(map.begin(), map.end(), [&](const auto& e) { return e.first == key; });
  if (it == map.end()) return false;
  map.erase(it);
  return true;
}

std::string Node::describe() const {
  switch (kind()) {
    case Kind::null:
      return "null";
    case Kind::missing:
      return "??? (unset)";
    case Kind::boolean:
      return std::string("a boolean ") + (as_bool() ? "true" : "false");
    case Kind::integer:
      return "an integer " + std::to_string(as_int());
    case Kind::real:
      return "a number " + std::to_string(as_real());
    case Kind::string:
      return "a string '" + as_string() + "'";
    case Kind::list:
      return "a list";
    case Kind::map:
      return "a map";
  }
  return "?";
}

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

Node plain_scalar(std::string_view text) {
  static const std::regex integer(R"([-+]?[0-9][0-9_]*)");
  static const std::regex real(
      R"([-+]?([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9][0-9_]*)([eE][-+]?[0-9]+)?)");
  static const std::regex special(R"(([-+]?)\.?(inf|nan))");
  const std::string value(text);
  const std::string low = lower(text);
  if (value.empty() || low == "null" || value == "~") return Node();
  if (value == "???") return Node::missing();
  if (low == "true") return Node(true);
  if (low == "false") return Node(false);
  std::string digits = value;
  digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
  if (std::regex_match(value, integer)) {
    try {
      return Node(static_cast<std::int64_t>(std::stoll(digits)));
    } catch (const std::out_of_range&) {
      return Node(value);
    }
  }
  // strtod as Python's float(): out of range is inf (1e400) or 0 (1e-400), not an exception.
  if (std::regex_match(value, real)) return Node(std::strtod(digits.c_str(), nullptr));
  std::smatch match;
  if (std::regex_match(low, match, special)) {
    return Node(std::strtod((match[1].str() + match[2].str()).c_str(), nullptr));
  }
  return Node(value);
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  if (path.empty()) return parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.emplace_back(path.substr(start, dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

const Node* find_path(const Node& root, std::string_view path) {
  const Node* node = &root;
  for (const auto& part : split_path(path)) {
    node = node->find(part);
    if (node == nullptr) return nullptr;
  }
  return node;
}

namespace {

void collect(const Node& node, const std::string& prefix, std::vector<std::string>& out) {
  if (!node.is_map()) return;
  for (const auto& [key, child] : node.entries()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    out.push_back(path);
    collect(child, path, out);
  }
}

}  // namespace

std::vector<std::string> all_paths(const Node& root) {
  std::vector<std::string> out;
  collect(root, "", out);
  return out;
}

void leaf_paths(const Node& node, const std::string& prefix, std::vector<std::string>& out) {
  if (!node.is_map() || node.entries().empty()) {
    if (!prefix.empty()) out.push_back(prefix);
    return;
  }
  for (const auto& [key, child] : node.entries()) {
    leaf_paths(child, prefix.empty() ? key : prefix + "." + key, out);
  }
}

}  // namespace verlpp::config
