#include "verlpp/config/unread_keys.h"

#include <algorithm>

#include "verlpp/config/ignored.h"

namespace verlpp::config {
namespace {

bool same_value(const Node& a, const Node& b) {
  const bool numbers_a = a.kind() == Node::Kind::integer || a.kind() == Node::Kind::real;
  const bool numbers_b = b.kind() == Node::Kind::integer || b.kind() == Node::Kind::real;
  if (numbers_a && numbers_b) {
    const auto as_double = [](const Node& n) {
      return n.kind() == Node::Kind::integer ? static_cast<double>(n.as_int()) : n.as_real();
    };
    return as_double(a) == as_double(b);
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Node::Kind::boolean:
      return a.as_bool() == b.as_bool();
    case Node::Kind::string:
      return a.as_string() == b.as_string();
    case Node::Kind::list:
      return std::equal(a.items().begin(), a.items().end(), b.items().begin(), b.items().end(),
                        same_value);
    case Node::Kind::map:
      return std::equal(a.entries().begin(), a.entries().end(), b.entries().begin(),
                        b.entries().end(), [](const auto& x, const auto& y) {
                          return x.first == y.first && same_value(x.second, y.second);
                        });
    default:  // null, missing
      return true;
  }
}

// Whether the key belongs to a training engine's implementation (see unread_keys.h).
bool is_engine_setting(const std::string& key) {
  const std::vector<std::string> parts = split_path(key);
  return std::any_of(parts.begin(), parts.end(), [](const std::string& part) {
    return part == "megatron" || part == "fsdp_config" || part == "fsdp" ||
           part == "override_optimizer_config" || part == "entropy_from_logits_with_chunking" ||
           part == "entropy_checkpointing" || part == "sum_pi_squared_checkpointing";
  });
}

// Whether `key` or a parent of it was read.
bool read_whole(const std::string& key, const KeyReads& reads) {
  if (reads.count("") > 0 || reads.count(key) > 0) return true;
  for (std::size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
    if (reads.count(key.substr(0, dot)) > 0) return true;
  }
  return false;
}

// Whether `key`, a parent of it or a child of it was read.
bool was_read(const std::string& key, const KeyReads& reads) {
  if (read_whole(key, reads)) return true;
  const auto child = reads.lower_bound(key + ".");
  return child != reads.end() && child->starts_with(key + ".");
}

// A key that differs from verl's default: its value and the default's (null when absent).
struct Leaf {
  std::string key;
  const Node* value;
  const Node* default_value;
};

// `key` with its value, or, for a map set over a map default, its entries that differ from the
// default's (recursively), so that `a={b:1}` over a section names a.b.
void differing_leaves(const std::string& key, const Node& value, const Node* default_value,
                      std::vector<Leaf>& out) {
  if (default_value != nullptr && same_value(value, *default_value)) return;
  if (value.is_map() && default_value != nullptr && default_value->is_map() &&
      !value.entries().empty()) {
    for (const auto& [name, child] : value.entries()) {
      differing_leaves(key + "." + name, child, default_value->find(name), out);
    }
    return;
  }
  out.push_back({key, &value, default_value});
}

}  // namespace

std::vector<UnreadKey> unread_keys(const std::vector<std::string>& user_keys, const KeyReads& reads,
                                   const Node& root, const Node& defaults) {
  std::vector<UnreadKey> out;
  for (const auto& user_key : user_keys) {
    // A section set as a map is judged entry by entry: reading some of its keys does not read the
    // others.
    if (read_whole(user_key, reads) || is_ignored_key(user_key)) continue;
    const Node* user_value = find_path(root, user_key);
    if (user_value == nullptr) continue;  // deleted with ~
    std::vector<Leaf> leaves;
    differing_leaves(user_key, *user_value, find_path(defaults, user_key), leaves);
    for (const Leaf& leaf : leaves) {
      if (was_read(leaf.key, reads) || is_ignored_key(leaf.key)) continue;
      if (std::any_of(out.begin(), out.end(),
                      [&](const UnreadKey& u) { return u.key == leaf.key; })) {
        continue;
      }
      out.push_back({leaf.key, leaf.value->describe(),
                     leaf.default_value != nullptr ? leaf.default_value->describe() : "absent",
                     is_engine_setting(leaf.key)});
    }
  }
  return out;
}

KeyReads reads_through_interpolations(KeyReads reads, const std::vector<InterpolationEdge>& edges) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const InterpolationEdge& edge : edges) {
      if (reads.count(edge.source) == 0 && was_read(edge.target, reads)) {
        reads.insert(edge.source);
        grew = true;
      }
    }
  }
  return reads;
}

}  // namespace verlpp::config
