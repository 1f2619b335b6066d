// The tools' --temperature (generate, model score): a finite number >= 0, checked when parsed so
// that the error names the option (CLI11's NonNegativeNumber printed a 300-digit bound and let NaN
// through; generate's error named the trainer's rollout key).
#pragma once

#include <cmath>
#include <string>

namespace verlpp::apps {

// CLI11 check's convention: "" when `text` is a valid temperature, else the error.
inline std::string temperature_error(const std::string& text) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(value) || value < 0) {
    return "expected a number >= 0 (0: greedy), got " + text;
  }
  return "";
}

}  // namespace verlpp::apps
