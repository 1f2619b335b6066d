// Errors that reach the user as one line: what was wrong, where (key, file, line) and what was
// expected.
#pragma once

#include <stdexcept>
#include <string>

namespace verlpp {

// A user-facing error. The command line prints what() on one line and exits 1; no stack trace.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace verlpp
