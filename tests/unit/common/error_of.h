// The one-line error a call throws, for tests that compare it with the expected text.
#pragma once

#include <string>

#include "verlpp/core/error.h"

namespace verlpp::testing {

// The message of the verlpp::Error `call()` throws, or "(no error)" when it returns.
template <typename Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace verlpp::testing
