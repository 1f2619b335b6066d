// model.custom_chat_template (verl's hf_model.yaml; actor_rollout_ref.model.* in ppo): a Jinja chat
// template that replaces the tokenizer's. Checked before the run: one that does not parse is an
// error naming the key (the run refused it only after loading the model); one that never reads
// `messages` renders every row as the same text (for example a file path given instead of the
// template), a notice.
#pragma once

#include <optional>
#include <string>

#include "verlpp/config/finding.h"

namespace verlpp::config {

void check_custom_chat_template(const std::string& key, const std::optional<std::string>& source,
                                Findings& out);

}  // namespace verlpp::config
