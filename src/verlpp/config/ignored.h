// Keys verl has that name Python-only machinery verlpp does not act on (Ray, torch.compile, vLLM/
// SGLang engine arguments, FSDP-Turbo plans, profilers, TransferQueue). They are accepted so a verl
// launch script runs unchanged, and `check` lists the ones a user set. Also the distillation
// teacher's inference-server settings (verlpp scores with its own forward pass). A pattern part
// "*" matches any one key part.
#pragma once

#include <string>
#include <vector>

#include "verlpp/config/node.h"

namespace verlpp::config {

// True when `key` (dotted) contains one of the ignored key patterns as a run of whole components.
bool is_ignored_key(const std::string& key);

// The keys of `user_keys` that verlpp ignores, in order, without duplicates.
std::vector<std::string> ignored_keys(const std::vector<std::string>& user_keys);

struct IgnoredKeyMismatch {
  std::string key;
  std::string message;  // "got a string 'abc' where verl's default is a boolean false"
};

// The ignored keys of `user_keys` whose value in `root` is not of the kind of verl's default in
// `defaults`, as verl's typed (dataclass) configs refuse them: a boolean default takes a boolean,
// an integer default an integer, a real default a number, a list or map default a list or map
// (or null); a string, null or absent default takes any value, a null value any default. Also a
// negative worker count (a key ending in "workers"), which torch's DataLoader refuses.
std::vector<IgnoredKeyMismatch> ignored_key_mismatches(const std::vector<std::string>& user_keys,
                                                       const Node& root, const Node& defaults);

}  // namespace verlpp::config
