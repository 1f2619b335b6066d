// Keys verl has that name Python-only machinery verlpp does not act on (Ray, torch.compile, vLLM/
// SGLang engine arguments, FSDP-Turbo plans, profilers, TransferQueue). They are accepted so a verl
// launch script runs unchanged, and `check` lists the ones a user set. Also the distillation
// teacher's inference-server settings (verlpp scores with its own forward pass). A pattern part
// "*" matches any one key part.
#pragma once

#include <string>
#include <vector>

namespace verlpp::config {

// True when `key` (dotted) contains one of the ignored key patterns as a run of whole components.
bool is_ignored_key(const std::string& key);

// The keys of `user_keys` that verlpp ignores, in order, without duplicates.
std::vector<std::string> ignored_keys(const std::vector<std::string>& user_keys);

}  // namespace verlpp::config
