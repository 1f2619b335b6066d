#include "verlpp/core/batch_invariant_env.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp {

bool batch_invariant_requested() {
  const char* value = std::getenv("VLLM_BATCH_INVARIANT");
  const std::string v = value == nullptr ? "" : value;
  if (v.empty() || v == "0") return false;
  if (v == "1") return true;
  throw Error(fmt::format("VLLM_BATCH_INVARIANT='{}': expected 1 (on) or 0 (off)", v));
}

}  // namespace verlpp
