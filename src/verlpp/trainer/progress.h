// The training progress bar on a terminal: "[#####-----] 12/100 steps | 3.1 s/step | ETA 4m32s".
// One stderr line after each step, only when stderr is a terminal, so logs and pipes receive
// nothing from it. Whole lines rather than a redraw in place: the console tracker's step lines and
// the notes reach the same terminal between two bars and would run into an unended one.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace verlpp::trainer {

// The bar text for `done` of `total` steps, `seconds_per_step` averaged over the steps so far
// (ETA omitted while it is not known, i.e. done == 0 or seconds_per_step <= 0).
std::string format_progress(std::int64_t done, std::int64_t total, double seconds_per_step,
                            int bar_width = 30);

// "45s", "4m32s", "2h05m".
std::string format_duration(double seconds);

class ProgressBar {
 public:
  // `first_step` is the step training starts at (resumed runs start past 1).
  ProgressBar(std::int64_t first_step, std::int64_t total_steps);
  void step_done(std::int64_t step);

 private:
  std::int64_t first_step_, total_steps_;
  std::chrono::steady_clock::time_point start_;
  bool enabled_;
};

}  // namespace verlpp::trainer
