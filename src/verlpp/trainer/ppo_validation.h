// verl's _validate (verl.md §7.4): the whole validation set (in pieces of data.val_batch_size when
// set), each prompt repeated val_kwargs.n times with its own uid, generated with val_kwargs
// sampling, scored by the training reward function; reward = the sum of each row's token-level
// scores, plus the scorer's extra values (acc), and the extracted answer as pred for maj@n.
#pragma once

#include <cstdint>
#include <optional>

#include "verlpp/trainer/ppo_context.h"
#include "verlpp/trainer/signals.h"
#include "verlpp/trainer/tracking.h"

namespace verlpp::trainer {

// val-core/* and val-aux/* metrics. Throws verlpp::Error when the context has no validation data.
Metrics validate(PpoContext& ctx, std::int64_t global_step);
// The same, left unfinished (none) when `stop` is requested on any rank before a decode step of
// the generation (the ranks agree after each piece's generation) or between pieces.
std::optional<Metrics> validate(PpoContext& ctx, std::int64_t global_step, const StopRequest& stop);

}  // namespace verlpp::trainer
