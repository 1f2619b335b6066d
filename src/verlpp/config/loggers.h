// trainer.logger's values (verl's Tracking backends): the ones verlpp writes, and verl's network
// trackers, which verlpp skips with a note (the binary has no network client for them).
#pragma once

#include <array>
#include <string_view>

namespace verlpp::config {

inline constexpr std::array<std::string_view, 3> kLoggers = {"console", "file", "tensorboard"};
inline constexpr std::array<std::string_view, 6> kSkippedLoggers = {
    "wandb", "swanlab", "mlflow", "vemlp_wandb", "clearml", "trackio"};

}  // namespace verlpp::config
