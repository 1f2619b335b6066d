#include "verlpp/config/home_path.h"

#include <cstdlib>

namespace verlpp::config {

std::string expand_home(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (path.starts_with("~/") && home != nullptr) return std::string(home) + path.substr(1);
  return path;
}

}  // namespace verlpp::config
