// Stopping a generation call part-way (a trainer's validation pass when SIGINT/SIGTERM arrives):
// the call asks its StopCheck before every decode step and, once it returns true, abandons its
// rows and throws GenerationStopped. An empty StopCheck is never asked.
#pragma once

#include <functional>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

using StopCheck = std::function<bool()>;

class GenerationStopped : public Error {
 public:
  using Error::Error;
};

// Throws GenerationStopped when `stop` is set and returns true.
inline void throw_if_stopped(const StopCheck& stop) {
  if (stop && stop()) throw GenerationStopped("rollout: generation stopped");
}

}  // namespace verlpp::rollout
