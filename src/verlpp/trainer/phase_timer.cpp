#include "verlpp/trainer/phase_timer.h"

#include <torch/cuda.h>

namespace verlpp::trainer {

std::chrono::steady_clock::time_point PhaseTimer::now() const {
  if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
  return std::chrono::steady_clock::now();
}

}  // namespace verlpp::trainer
