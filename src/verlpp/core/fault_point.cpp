#include "verlpp/core/fault_point.h"

#include <csignal>
#include <cstdlib>
#include <string>

namespace verlpp {

void fault_point(const char* name, std::int64_t step) {
  const char* at = std::getenv("VERLPP_KILL_AT");
  if (at == nullptr) return;
  if (std::string(at) == std::string(name) + "@" + std::to_string(step)) std::raise(SIGKILL);
}

}  // namespace verlpp
