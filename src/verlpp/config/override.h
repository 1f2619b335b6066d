// Command-line overrides in Hydra's grammar, as verl launch scripts write them:
//   a.b=v (the key must exist), +a.b=v (add a new key), ++a.b=v (add or override),
//   ~a.b or ~a.b=v (delete). Values: null, true/false, numbers (1e-6), plain or quoted strings,
//   lists [a,'b',3], dicts {k:v,k2:[1]}, nested; backslash escapes \{ \} \[ \] \, \: \= \( \)
//   \\ and \space in plain strings; ${...} interpolations are kept verbatim and resolved later.
// Source of the grammar: Hydra's override grammar (hydra/grammar/OverrideParser.g4), as used by
// `python3 -m verl.trainer.main_ppo key=value ...`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "verlpp/config/node.h"

namespace verlpp::config {

struct Override {
  enum class Op { set, add, force, remove };
  Op op = Op::set;
  std::string path;
  std::optional<Node> value;  // absent only for `~a.b`
  std::string text;           // the argument as given, for messages
};

// Parses one command-line argument. Throws verlpp::Error quoting the argument on malformed input
// (no '=', empty key, unbalanced brackets or quotes, a comma list without brackets).
Override parse_override(const std::string& argument);

// Parses the value part of an override (everything after the first unescaped '=').
// Throws verlpp::Error with the position of the problem.
Node parse_override_value(std::string_view text);

enum class Applied { yes, deferred };

// Applies an override to the tree as Hydra does (OmegaConf.update with merge=True): a map value
// merges into an existing map (`a={k:v}` changes a.k only), any other value replaces. Returns
// Applied::deferred, changing nothing, when the path runs through a value that is still an
// interpolation (verl's ref.megatron.override_transformer_config is `${oc.select:...}` and
// scripts add keys under it): apply it again after resolve_interpolations. Throws verlpp::Error
// for `a.b=v` on an absent key (naming the closest existing key), for `+a.b=v` on a present key,
// for `~a.b` on an absent key, and for a scalar or list given to a section (a map of keys) by `=`
// or `++` (OmegaConf would replace the section, and the run fail on the first key read from it).
Applied apply_override(Node& root, const Override& item);

}  // namespace verlpp::config
