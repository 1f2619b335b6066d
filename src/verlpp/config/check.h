// `verlpp check`: compose, type, validate and lay out a configuration without running anything.
#pragma once

#include <string>
#include <vector>

#include "verlpp/config/compose.h"
#include "verlpp/config/finding.h"
#include "verlpp/config/layout.h"
#include "verlpp/config/sections.h"

namespace verlpp::config {

struct CheckReport {
  ComposedConfig composed;
  Config config;
  Layout layout;
  Findings findings;
  std::vector<std::string> ignored;  // keys the user set that verlpp does not act on
  std::string model_note;            // why the model's config.json was not read, when it was not

  bool valid() const;  // no error findings
};

// The user's keys that no binder read (`reads`) and whose values differ from verl's defaults for
// the request's config (unread_keys.h): an error finding each, except the engines' implementation
// settings, which are appended to `ignored` (the issue-24 audit: every key acts or is reported).
void refuse_unread_keys(const ComposedConfig& composed, const KeyReads& reads,
                        const ConfigRequest& request, Findings& findings,
                        std::vector<std::string>& ignored);

// Throws verlpp::Error when the configuration cannot be composed or typed (unknown key, malformed
// override, wrong type, unset required key, missing config file); rule violations are findings.
CheckReport check_config(const ConfigRequest& request);
// The same on a tree already composed from `request` (check composes once to tell ppo from sft).
CheckReport check_config(const ConfigRequest& request, ComposedConfig composed);

// The layout, notices, ignored keys and violations as text (the config itself is printed apart).
std::string format_report(const CheckReport& report);
// The "accepted but ignored" list (empty text for none), and the notices and violations ending in
// "== result: valid" or "== result: N problems".
std::string format_ignored(const std::vector<std::string>& ignored);
std::string format_findings(const Findings& findings);

}  // namespace verlpp::config
