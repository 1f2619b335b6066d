#include "verlpp/trainer/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "verlpp/core/log.h"

namespace verlpp::trainer {

std::string format_duration(double seconds) {
  const auto total = static_cast<std::int64_t>(std::llround(std::max(0.0, seconds)));
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

std::string format_progress(std::int64_t done, std::int64_t total, double seconds_per_step,
                            int bar_width) {
  const double fraction =
      total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0)
                : 0.0;
  const int filled = static_cast<int>(fraction * bar_width);
  std::string text = "[" + std::string(filled, '#') + std::string(bar_width - filled, '-') + "] " +
                     fmt::format("{}/{} steps", done, total);
  if (done > 0 && seconds_per_step > 0) {
    text += fmt::format(" | {:.1f} s/step | ETA {}", seconds_per_step,
                        format_duration(seconds_per_step * static_cast<double>(total - done)));
  }
  return text;
}

ProgressBar::ProgressBar(std::int64_t first_step, std::int64_t total_steps)
    : first_step_(first_step),
      total_steps_(total_steps),
      start_(std::chrono::steady_clock::now()),
      enabled_(is_main_rank() && isatty(STDERR_FILENO) != 0) {}

void ProgressBar::step_done(std::int64_t step) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::int64_t steps_this_run = step - first_step_ + 1;
  const double per_step = steps_this_run > 0 ? elapsed / static_cast<double>(steps_this_run) : 0;
  std::fprintf(stderr, "%s\n", format_progress(step, total_steps_, per_step).c_str());
  std::fflush(stderr);
}

}  // namespace verlpp::trainer
