#include "verlpp/core/batch_invariant_env.h"

#include <fmt/format.h>

#include <cstdlib>

#include "verlpp/core/error.h"

namespace verlpp {

std::string batch_invariant_value() {
  const char* value = std::getenv("VLLM_BATCH_INVARIANT");
  return value == nullptr ? "" : value;
}

bool is_batch_invariant_value(const std::string& value) {
  return value.empty() || value == "0" || value == "1";
}

bool batch_invariant_requested() {
  const std::string value = batch_invariant_value();
  if (!is_batch_invariant_value(value)) {
    throw Error(fmt::format("VLLM_BATCH_INVARIANT='{}': expected 1 (on) or 0 (off)", value));
  }
  return value == "1";
}

}  // namespace verlpp
