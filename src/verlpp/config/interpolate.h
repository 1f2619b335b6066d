// OmegaConf interpolations, resolved in place once all files and overrides are merged:
//   ${a.b}                  absolute key
//   ${.x} ${..x}            relative to the map that holds the key (each extra dot goes up one map)
//   ${oc.select:path,dflt}  the key's value, or dflt (parsed like an override value) when the key
//   is
//                           absent or ??? ; path may be relative
//   ${oc.env:VAR,dflt}      environment variable, typed like a plain scalar; dflt when unset
// A value that is exactly one interpolation takes the referenced value's type; interpolations
// inside a longer string are spliced in as text.
#pragma once

#include <string>
#include <vector>

#include "verlpp/config/node.h"

namespace verlpp::config {

// A key whose value came from another through an interpolation: `target` (holding ${source})
// reads `source`. Dotted paths.
struct InterpolationEdge {
  std::string target;
  std::string source;
};

// Throws verlpp::Error naming the key that holds the interpolation for: an unknown key, a reference
// to an unset (???) key, an unset environment variable without default, an unknown resolver, a
// cycle. With `edges`, appends one edge per key reference resolved (oc.select's included).
void resolve_interpolations(Node& root, std::vector<InterpolationEdge>* edges = nullptr);

}  // namespace verlpp::config
