#include "verlpp/trainer/tracking.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "verlpp/config/loggers.h"
#include "verlpp/core/error.h"
#include "verlpp/core/log.h"
#include "verlpp/trainer/tensorboard.h"

namespace verlpp::trainer {
namespace {

using config::kLoggers;
using config::kSkippedLoggers;

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

class ConsoleSink : public MetricSink {
 public:
  void log(const Metrics& metrics, std::int64_t step) override {
    std::cout << format_console_line(metrics, step) << std::endl;
  }
};

class FileSink : public MetricSink {
 public:
  explicit FileSink(const std::filesystem::path& path) : path_(path) {
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    out_.open(path, std::ios::app);
    if (!out_) throw Error("trainer.logger file: cannot write " + path.string());
  }
  void log(const Metrics& metrics, std::int64_t step) override {
    out_ << format_file_line(metrics, step) << std::endl;
    if (!out_) throw Error("trainer.logger file: cannot write " + path_.string());
  }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
};

class TensorBoardSink : public MetricSink {
 public:
  explicit TensorBoardSink(const std::filesystem::path& dir) : writer_(dir) {}
  void log(const Metrics& metrics, std::int64_t step) override {
    for (const auto& [key, value] : metrics) writer_.add_scalar(key, value, step);
  }

 private:
  TensorBoardWriter writer_;
};

std::string valid_names() {
  std::string names;
  for (auto name : kLoggers) names += (names.empty() ? "" : ", ") + std::string(name);
  for (auto name : kSkippedLoggers) names += ", " + std::string(name);
  return names;
}

bool listed(const auto& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void check_logger_name(const std::string& name) {
  if (!listed(kLoggers, name) && !listed(kSkippedLoggers, name)) {
    throw Error("trainer.logger: unknown logger '" + name + "'; valid: " + valid_names());
  }
}

std::unique_ptr<MetricSink> make_sink(const std::string& name, const std::string& project,
                                      const std::string& experiment) {
  check_logger_name(name);
  if (name == "console") return std::make_unique<ConsoleSink>();
  if (name == "file") {
    const std::string root = env_or("VERL_FILE_LOGGER_ROOT", ".");
    return std::make_unique<FileSink>(
        env_or("VERL_FILE_LOGGER_PATH",
               (std::filesystem::path(root) / project / (experiment + ".jsonl"))));
  }
  if (name == "tensorboard") {
    return std::make_unique<TensorBoardSink>(env_or(
        "TENSORBOARD_DIR", (std::filesystem::path("tensorboard_log") / project / experiment)));
  }
  log_note("trainer.logger " + name +
           " is a network tracker that verlpp does not support; skipped (use file or "
           "tensorboard)");
  return nullptr;
}

std::string format_value(double value) {
  if (std::isfinite(value) && value == std::round(value) && std::fabs(value) < 1e15) {
    return fmt::format("{}", static_cast<std::int64_t>(value));
  }
  return fmt::format("{:.6g}", value);
}

}  // namespace

Tracking::Tracking(const std::string& project_name, const std::string& experiment_name,
                   const std::vector<std::string>& loggers) {
  for (const auto& name : loggers) {
    // Only rank 0 logs; the others check the names (the same error on every rank).
    if (!is_main_rank()) {
      check_logger_name(name);
      continue;
    }
    if (auto sink = make_sink(name, project_name, experiment_name)) {
      sinks_.push_back(std::move(sink));
    }
  }
}

Tracking::~Tracking() = default;

void Tracking::log(const Metrics& metrics, std::int64_t step) {
  for (auto& sink : sinks_) sink->log(metrics, step);
}

std::string format_console_line(const Metrics& metrics, std::int64_t step) {
  std::string line = fmt::format("step:{}", step);
  for (const auto& [key, value] : metrics) line += " - " + key + ":" + format_value(value);
  return line;
}

std::string format_file_line(const Metrics& metrics, std::int64_t step) {
  nlohmann::json data = nlohmann::json::object();
  for (const auto& [key, value] : metrics) {
    data[key] = std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
  }
  nlohmann::ordered_json line;
  line["step"] = step;
  line["data"] = data;
  return line.dump();
}

}  // namespace verlpp::trainer
