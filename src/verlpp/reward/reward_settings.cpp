#include "verlpp/reward/reward_settings.h"

#include <fmt/format.h>

#include "verlpp/core/error.h"

namespace verlpp::reward {
namespace {

using config::Node;

// The node at `path` (dot-separated) or nullptr when a part is absent, null or missing.
const Node* at_path(const Node& root, const std::string& path) {
  const Node* node = &root;
  std::size_t start = 0;
  while (node != nullptr) {
    const std::size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    node = node->is_map() ? node->find(part) : nullptr;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (node == nullptr || node->is_null() || node->is_missing()) return nullptr;
  return node;
}

[[noreturn]] void wrong_type(const std::string& path, const Node& node, const char* expected) {
  throw Error(fmt::format("{}: expected {}, got {}", path, expected, node.describe()));
}

void read(const Node& root, const std::string& path, std::string& out) {
  if (const Node* node = at_path(root, path)) {
    if (node->kind() != Node::Kind::string) wrong_type(path, *node, "a string");
    out = node->as_string();
  }
}

void read(const Node& root, const std::string& path, bool& out) {
  if (const Node* node = at_path(root, path)) {
    if (node->kind() != Node::Kind::boolean) wrong_type(path, *node, "true or false");
    out = node->as_bool();
  }
}

void read(const Node& root, const std::string& path, std::int64_t& out) {
  if (const Node* node = at_path(root, path)) {
    if (node->kind() != Node::Kind::integer) wrong_type(path, *node, "an integer");
    out = node->as_int();
  }
}

void read(const Node& root, const std::string& path, double& out) {
  if (const Node* node = at_path(root, path)) {
    if (node->kind() == Node::Kind::integer) {
      out = static_cast<double>(node->as_int());
    } else if (node->kind() == Node::Kind::real) {
      out = node->as_real();
    } else {
      wrong_type(path, *node, "a number");
    }
  }
}

}  // namespace

// The keys read here are listed for the unread-key audit in config/sections.cpp
// (mark_reward_settings); keep the two lists equal.
RewardSettings reward_settings(const config::Node& root) {
  RewardSettings settings;
  read(root, "reward.custom_reward_function.path", settings.scorer.custom_path);
  read(root, "reward.custom_reward_function.name", settings.scorer.custom_name);
  read(root, "reward.reward_manager.name", settings.manager.name);
  read(root, "reward.reward_kwargs.verl_compat", settings.scorer.rules.verl_compat);
  auto& buffer = settings.manager.overlong_buffer;
  read(root, "reward.reward_kwargs.overlong_buffer_cfg.enable", buffer.enable);
  read(root, "reward.reward_kwargs.overlong_buffer_cfg.len", buffer.len);
  read(root, "reward.reward_kwargs.overlong_buffer_cfg.penalty_factor", buffer.penalty_factor);
  read(root, "reward.reward_kwargs.overlong_buffer_cfg.log", buffer.log);
  read(root, "reward.reward_kwargs.max_resp_len", buffer.max_resp_len);
  return settings;
}

}  // namespace verlpp::reward
