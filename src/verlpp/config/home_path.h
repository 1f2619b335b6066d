// "~/..." paths as a shell expands them (verl's launch scripts write $HOME/data/...; users type ~).
#pragma once

#include <string>

namespace verlpp::config {

// `path` with a leading "~/" replaced by $HOME; other paths (and every path when HOME is unset)
// unchanged.
std::string expand_home(const std::string& path);

}  // namespace verlpp::config
