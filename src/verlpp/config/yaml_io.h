// YAML text <-> configuration tree, with OmegaConf's scalar typing (see plain_scalar in node.h).
#pragma once

#include <string>

#include "verlpp/config/node.h"

namespace verlpp::config {

// The deepest nesting of lists and maps a config value may have, in YAML files and in
// command-line overrides (and the most parts of an override's dotted key): deeper values
// exhaust the stack or the memory when printed or resolved.
constexpr int kMaxYamlDepth = 256;

// Parses YAML text. Plain scalars are typed by plain_scalar; quoted scalars stay strings.
// Throws verlpp::Error "SOURCE:LINE:COLUMN: <parser message>" on malformed YAML, and on text that
// is not UTF-8 or holds characters YAML does not allow (NUL and other control characters, U+FFFE,
// U+FFFF; PyYAML, which Hydra reads configs with, refuses them too).
Node parse_yaml(const std::string& text, const std::string& source);

// Reads and parses a YAML file; throws verlpp::Error naming the path when it cannot be read.
Node load_yaml_file(const std::string& path);

// Block-style YAML; strings that would read back as another type are double-quoted.
std::string to_yaml(const Node& root);

// One-line flow form of a value ("[a, b]", "{k: v}", "1e-06"), for messages.
std::string to_flow(const Node& node);

}  // namespace verlpp::config
