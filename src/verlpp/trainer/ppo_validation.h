// verl's _validate (verl.md §7.4): the whole validation set (in pieces of data.val_batch_size when
// set), each prompt repeated val_kwargs.n times with its own uid, generated with val_kwargs
// sampling, scored by the training reward function; reward = the sum of each row's token-level
// scores, plus the scorer's extra values (acc), and the extracted answer as pred for maj@n.
#pragma once

#include <cstdint>

#include "verlpp/trainer/ppo_context.h"
#include "verlpp/trainer/tracking.h"

namespace verlpp::trainer {

// val-core/* and val-aux/* metrics. Throws verlpp::Error when the context has no validation data.
Metrics validate(PpoContext& ctx, std::int64_t global_step);

}  // namespace verlpp::trainer
