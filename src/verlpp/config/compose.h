// Builds the configuration a run uses, as verl's Hydra entry point does: the primary config
// (--config-name, looked up in --config-path, then among the built-in configs), its `defaults:`
// list, the command-line overrides in order, then interpolation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "verlpp/config/interpolate.h"
#include "verlpp/config/node.h"

namespace verlpp::config {

struct ConfigRequest {
  std::optional<std::string> config_path;   // --config-path; a directory
  std::string config_name = "ppo_trainer";  // --config-name; ".yaml" optional
  std::vector<std::string> overrides;       // key=value arguments
};

struct ComposedConfig {
  Node root;                           // resolved tree
  std::vector<std::string> user_keys;  // keys set by a user file or an override
  std::string origin;                  // where the primary config came from, for the report
  std::vector<InterpolationEdge> interpolations;  // which key's value came from which
};

// Deep-merges `overlay` into `base`: maps merge key by key, anything else replaces; the scalar
// "__delete__" removes the key from `base`.
void merge_into(Node& base, const Node& overlay);

// The legacy reward blocks' values move to reward.* as verl moves them (legacy_reward.h).
// Throws verlpp::Error for: a config name found neither in --config-path nor built in, unreadable
// or malformed YAML, an unsupported `defaults:` entry, a malformed or inapplicable override, and
// the interpolation errors of resolve_interpolations.
ComposedConfig compose_config(const ConfigRequest& request);

}  // namespace verlpp::config
