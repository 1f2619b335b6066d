#include "verlpp/config/legacy_reward.h"

#include <array>
#include <string_view>
#include <utility>

#include "verlpp/config/override.h"

namespace verlpp::config {
namespace {

// (legacy prefix, reward.* prefix): a legacy key PREFIX.REST moves to TO.REST.
constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kMoves = {{
    {"reward_model.num_workers", "reward.num_workers"},
    {"reward_model.reward_manager", "reward.reward_manager.name"},
    {"reward_model.reward_loop_source", "reward.reward_manager.source"},
    {"reward_model.reward_loop_module_path", "reward.reward_manager.module.path"},
    {"reward_model.reward_loop_class_name", "reward.reward_manager.module.name"},
    {"reward_model.enable", "reward.reward_model.enable"},
    {"reward_model.enable_resource_pool", "reward.reward_model.enable_resource_pool"},
    {"reward_model.n_gpus_per_node", "reward.reward_model.n_gpus_per_node"},
    {"reward_model.nnodes", "reward.reward_model.nnodes"},
    {"reward_model.model.path", "reward.reward_model.model_path"},
    {"reward_model.reward_kwargs", "reward.reward_kwargs"},
    {"reward_model.rollout", "reward.reward_model.rollout"},
    {"custom_reward_function", "reward.custom_reward_function"},
    {"sandbox_fusion", "reward.sandbox_fusion"},
}};

// `path` with its legacy prefix replaced, or "" when no move covers it.
std::string moved_path(const std::string& path) {
  for (const auto& [from, to] : kMoves) {
    if (path == from) return std::string(to);
    if (path.size() > from.size() && path.compare(0, from.size(), from) == 0 &&
        path[from.size()] == '.') {
      return std::string(to) + path.substr(from.size());
    }
  }
  return "";
}

}  // namespace

void migrate_legacy_reward(Node& root, std::vector<std::string>& user_keys,
                           std::vector<InterpolationEdge>& interpolations) {
  for (const std::string& legacy :
       {std::string("reward_model"), std::string("custom_reward_function"),
        std::string("sandbox_fusion")}) {
    const Node* block = root.find(legacy);
    if (block == nullptr) continue;
    std::vector<std::string> leaves;
    leaf_paths(*block, legacy, leaves);
    for (const std::string& leaf : leaves) {
      const Node* value = find_path(root, leaf);
      const std::string to = moved_path(leaf);
      if (value == nullptr || value->is_null() || to.empty()) continue;
      Override move;  // as `++TO=VALUE`
      move.op = Override::Op::force;
      move.path = to;
      move.value = *value;
      move.text = "++" + to + " (moved from " + leaf + ")";
      apply_override(root, move);
    }
  }
  for (std::string& key : user_keys) {
    const std::string to = moved_path(key);
    if (!to.empty()) key = to;
  }
  const std::size_t edges = interpolations.size();
  for (std::size_t i = 0; i < edges; ++i) {
    const std::string to = moved_path(interpolations[i].target);
    if (!to.empty()) interpolations.push_back({to, interpolations[i].source});
  }
}

}  // namespace verlpp::config
