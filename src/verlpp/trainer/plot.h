// The end-of-run PNG: one panel per metric (reward, response length, KL) against training step,
// drawn with cairo. Builds without cairo return false from write_metric_plot (the trainer then says
// so once); everything else works the same.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "verlpp/trainer/tracking.h"

namespace verlpp::trainer {

struct StepMetrics {
  std::int64_t step = 0;
  Metrics metrics;
};

struct PlotPanel {
  std::string title;
  std::vector<std::string> keys;  // the first key present in any step is plotted
};

// Reward (critic/score/mean), response length (response_length/mean) and KL (actor/kl_loss, else
// actor/ppo_kl).
std::vector<PlotPanel> default_plot_panels();

// Pixel geometry of the image: panels side by side, each kPanelWidth × kHeight.
inline constexpr int kPanelWidth = 420;
inline constexpr int kPlotHeight = 320;
struct PlotArea {
  double left, top, width, height;  // the data area of one panel, in pixels
};
PlotArea plot_area(int panel_index);

// Writes the PNG to `path` (through a temporary name). Returns false, writing nothing, when this
// build has no cairo. A panel with no data shows "no data". Throws verlpp::Error naming the path
// when the image cannot be written.
bool write_metric_plot(const std::filesystem::path& path, const std::vector<StepMetrics>& history,
                       const std::vector<PlotPanel>& panels);

}  // namespace verlpp::trainer
