// verl's startup rules (verl/utils/config.py::validate_config, the dataclass __post_init__/validate
// methods in verl/workers/config/*.py, and the runtime asserts verl hits at worker init or the
// first step), checked before anything runs. See ../shared/reference/verl.md §2. Parallel-layout
// rules are in layout.h; these use its data-parallel size.
#pragma once

#include <string>

#include "verlpp/config/finding.h"
#include "verlpp/config/layout.h"
#include "verlpp/config/sections.h"

namespace verlpp::config {

// Appends every violated rule (error) and verl's warnings (notice) to `findings`.
void validate_config(const Config& config, const Layout& layout, Findings& findings);

// optim.clip_grad: a finite number > 0 (at 0 torch's clip_grad_norm_, which verl uses, zeroes
// every gradient). An error finding under `key` otherwise.
void check_clip_grad(const std::string& key, double value, Findings& findings);

}  // namespace verlpp::config
