#include "verlpp/config/compose.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "verlpp/config/embedded_configs.h"
#include "verlpp/config/interpolate.h"
#include "verlpp/config/legacy_reward.h"
#include "verlpp/config/override.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"

namespace verlpp::config {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxDefaultsDepth = 16;

struct Loaded {
  Node tree;
  std::string origin;
  bool user_file = false;
};

std::string stem(std::string name) {
  if (name.ends_with(".yaml")) name.resize(name.size() - 5);
  return name;
}

std::string builtin_names() {
  std::string names;
  for (const auto& [name, text] : embedded_configs()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

Loaded load_named(const std::optional<std::string>& dir, const std::string& raw_name) {
  const std::string name = stem(raw_name);
  const auto& builtin = embedded_configs();
  const auto it = builtin.find(name);
  if (dir) {
    const fs::path file = fs::path(*dir) / (name + ".yaml");
    std::error_code ec;
    if (fs::status(file, ec).type() != fs::file_type::not_found) {
      require_regular_file(file.string(), "the config");
      std::ifstream in(file);
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      const bool same_as_builtin = it != builtin.end() && it->second == text;
      return {parse_yaml(text, file.string()), file.string(), !same_as_builtin};
    }
  }
  if (it == builtin.end()) {
    throw Error("--config-name " + raw_name + ": no such config" +
                (dir ? " in --config-path " + *dir + " nor" : std::string()) +
                " among the built-in configs (" + builtin_names() + ")");
  }
  return {parse_yaml(it->second, "built-in config/" + name + ".yaml"), "built-in " + name, false};
}

// Applies the `defaults:` list of `loaded`: each named config first, `_self_` where listed (at the
// end when not listed, as in Hydra 1.1+).
Node compose_defaults(const std::optional<std::string>& dir, Loaded loaded, int depth) {
  if (depth > kMaxDefaultsDepth)
    throw Error(loaded.origin + ": defaults lists nest too deeply (a cycle?)");
  Node own = std::move(loaded.tree);
  if (own.is_null()) own = Node::map();
  if (!own.is_map()) throw Error(loaded.origin + ": expected a YAML map at the top level");
  const Node* defaults_node = own.find("defaults");
  if (defaults_node == nullptr) return own;
  if (!defaults_node->is_list())
    throw Error(loaded.origin + ": 'defaults' must be a list of config names");
  const NodeList defaults = defaults_node->items();
  own.erase("defaults");
  Node result = Node::map();
  bool self_merged = false;
  for (const auto& entry : defaults) {
    if (entry.kind() != Node::Kind::string) {
      throw Error(loaded.origin + ": defaults entry " + to_flow(entry) +
                  " is not supported by verlpp (only config names and _self_)");
    }
    if (entry.as_string() == "_self_") {
      merge_into(result, own);
      self_merged = true;
      continue;
    }
    merge_into(result, compose_defaults(dir, load_named(dir, entry.as_string()), depth + 1));
  }
  if (!self_merged) merge_into(result, own);
  return result;
}

// Hydra's own settings (hydra.run.dir, hydra.job.chdir, ...): verlpp writes no Hydra output folder.
bool is_hydra_setting(const std::string& path) {
  return path == "hydra" || path.starts_with("hydra.");
}

// verl's SFT config mounts config groups with its defaults list (engine/fsdp.yaml at engine,
// optim/fsdp.yaml at optim, model/hf_model.yaml at model), and its scripts choose them on the
// command line (`engine=fsdp`). verlpp's sft_trainer.yaml is that composition already: choosing
// the same option changes nothing; another one (megatron, veomni, ...) is not composed here.
// Returns whether `item` is such a choice, to skip; throws verlpp::Error for another option.
bool is_config_group_choice(const std::string& config_name, const Override& item) {
  static const std::map<std::string, std::string> sft_groups = {
      {"engine", "fsdp"}, {"optim", "fsdp"}, {"model", "hf_model"}};
  if (config_name != "sft_trainer" && config_name != "sft_trainer.yaml") return false;
  const auto group = sft_groups.find(item.path);
  if (group == sft_groups.end() || item.op != Override::Op::set || !item.value ||
      item.value->kind() != Node::Kind::string) {
    return false;
  }
  if (item.value->as_string() == group->second) return true;
  throw Error(fmt::format(
      "override '{}': chooses verl's config group {}/{}.yaml; verlpp's sft composes {}/{}.yaml "
      "only (use {}={}, or leave it out)",
      item.text, item.path, item.value->as_string(), item.path, group->second, item.path,
      group->second));
}

}  // namespace

void merge_into(Node& base, const Node& overlay) {
  for (const auto& [key, value] : overlay.entries()) {
    if (value.kind() == Node::Kind::string && value.as_string() == "__delete__") {
      base.erase(key);
      continue;
    }
    Node* existing = base.find(key);
    if (existing != nullptr && existing->is_map() && value.is_map()) {
      merge_into(*existing, value);
    } else {
      base.set(key, value);
    }
  }
}

ComposedConfig compose_config(const ConfigRequest& request) {
  ComposedConfig out;
  Loaded primary = load_named(request.config_path, request.config_name);
  out.origin = primary.origin;
  if (primary.user_file && primary.tree.is_map()) {
    for (const auto& [key, value] : primary.tree.entries()) {
      if (key != "defaults") leaf_paths(value, key, out.user_keys);
    }
  }
  out.root = compose_defaults(request.config_path, std::move(primary), 0);
  std::vector<Override> deferred;
  for (const auto& argument : request.overrides) {
    Override item = parse_override(argument);
    if (is_config_group_choice(request.config_name, item)) continue;
    out.user_keys.push_back(item.path);
    if (is_hydra_setting(item.path)) continue;  // listed as ignored (ignored.cpp)
    if (apply_override(out.root, item) == Applied::deferred) deferred.push_back(std::move(item));
  }
  resolve_interpolations(out.root, &out.interpolations);
  if (deferred.empty()) {
    migrate_legacy_reward(out.root, out.user_keys, out.interpolations);
    return out;
  }
  // Under an interpolated map the key came from the referenced map, not from this config: Hydra's
  // "+" (add) behaves as "++" there, so verl scripts that add the same key to actor and ref work.
  for (auto& item : deferred) {
    if (item.op == Override::Op::add) item.op = Override::Op::force;
    apply_override(out.root, item);
  }
  resolve_interpolations(out.root, &out.interpolations);
  migrate_legacy_reward(out.root, out.user_keys, out.interpolations);
  return out;
}

}  // namespace verlpp::config
