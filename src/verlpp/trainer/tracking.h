// Experiment tracking: the sinks of verl's trainer.logger (verl/utils/tracking.py).
//
//   console      one line per step on stdout: "step:N - key:value - ..." (keys sorted), as verl's
//                aggregate_logger prints it.
//   file         JSON lines {"step": N, "data": {...}} at $VERL_FILE_LOGGER_PATH, else
//                ${VERL_FILE_LOGGER_ROOT:-.}/{project_name}/{experiment_name}.jsonl (appended).
//   tensorboard  event files in $TENSORBOARD_DIR, else
//   tensorboard_log/{project_name}/{experiment_name}.
//
// verl's network trackers (wandb, swanlab, mlflow, vemlp_wandb, clearml, trackio) are accepted and
// skipped with one notice on stderr; any other name is an error listing the valid names.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace verlpp::trainer {

using Metrics = std::map<std::string, double>;

class MetricSink {
 public:
  virtual ~MetricSink() = default;
  virtual void log(const Metrics& metrics, std::int64_t step) = 0;
};

class Tracking {
 public:
  // Throws verlpp::Error for an unknown logger name or an output that cannot be opened.
  Tracking(const std::string& project_name, const std::string& experiment_name,
           const std::vector<std::string>& loggers);
  ~Tracking();

  void log(const Metrics& metrics, std::int64_t step);

 private:
  std::vector<std::unique_ptr<MetricSink>> sinks_;
};

// The console line verl prints for one step.
std::string format_console_line(const Metrics& metrics, std::int64_t step);

// The JSON line verl's file logger writes for one step.
std::string format_file_line(const Metrics& metrics, std::int64_t step);

}  // namespace verlpp::trainer
