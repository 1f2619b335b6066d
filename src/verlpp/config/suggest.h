// "Did you mean" for unknown keys.
#pragma once

#include <string>

#include "verlpp/config/node.h"

namespace verlpp::config {

// The existing key closest to `path`: a key that ends with ".<path>" (the user left out a
// prefix) if there is one, else the key with the smallest Levenshtein distance. Empty for an
// empty tree.
std::string closest_key(const Node& root, const std::string& path);

// " (closest valid key: 'x.y')", or "" when the tree has no keys.
std::string did_you_mean(const Node& root, const std::string& path);

}  // namespace verlpp::config
