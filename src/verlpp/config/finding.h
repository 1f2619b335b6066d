// One result of checking a configuration: a violated rule (error) or something the user should know
// (notice), with the key involved and one concrete fix.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace verlpp::config {

struct Finding {
  enum class Severity { error, notice };
  Severity severity = Severity::error;
  std::string key;      // the key (or keys) the finding is about
  std::string message;  // what is wrong, with the numbers involved
  std::string fix;      // one concrete change that resolves it; may be empty for notices
};

using Findings = std::vector<Finding>;

inline void add_error(Findings& out, std::string key, std::string message, std::string fix) {
  out.push_back({Finding::Severity::error, std::move(key), std::move(message), std::move(fix)});
}

inline void add_notice(Findings& out, std::string key, std::string message, std::string fix = "") {
  out.push_back({Finding::Severity::notice, std::move(key), std::move(message), std::move(fix)});
}

// True when no finding is an error (notices only, or none).
inline bool no_errors(const Findings& findings) {
  return std::none_of(findings.begin(), findings.end(),
                      [](const Finding& f) { return f.severity == Finding::Severity::error; });
}

}  // namespace verlpp::config
