#include "verlpp/trainer/plot.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"

#ifdef VERLPP_HAVE_CAIRO
#include <cairo.h>
#include <fmt/format.h>
#endif

namespace verlpp::trainer {

std::vector<PlotPanel> default_plot_panels() {
  return {{"reward (critic/score/mean)", {"critic/score/mean"}},
          {"response length (response_length/mean)", {"response_length/mean"}},
          {"KL", {"actor/kl_loss", "actor/ppo_kl"}}};
}

PlotArea plot_area(int panel_index) {
  return {panel_index * kPanelWidth + 60.0, 40.0, kPanelWidth - 80.0, kPlotHeight - 90.0};
}

#ifdef VERLPP_HAVE_CAIRO
namespace {

struct Series {
  std::string key;
  std::vector<std::pair<double, double>> points;  // (step, value)
};

std::optional<Series> find_series(const PlotPanel& panel, const std::vector<StepMetrics>& history) {
  for (const auto& key : panel.keys) {
    Series series{key, {}};
    for (const auto& row : history) {
      if (auto it = row.metrics.find(key); it != row.metrics.end()) {
        series.points.emplace_back(static_cast<double>(row.step), it->second);
      }
    }
    if (!series.points.empty()) return series;
  }
  return std::nullopt;
}

void draw_text(cairo_t* cr, double x, double y, const std::string& text, double size) {
  cairo_set_font_size(cr, size);
  cairo_move_to(cr, x, y);
  cairo_show_text(cr, text.c_str());
}

void draw_panel(cairo_t* cr, int index, const PlotPanel& panel,
                const std::vector<StepMetrics>& history) {
  const PlotArea area = plot_area(index);
  cairo_set_source_rgb(cr, 0, 0, 0);
  draw_text(cr, area.left, 24, panel.title, 13);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, area.left, area.top, area.width, area.height);
  cairo_stroke(cr);
  const auto series = find_series(panel, history);
  if (!series) {
    draw_text(cr, area.left + area.width / 2 - 25, area.top + area.height / 2, "no data", 12);
    return;
  }
  auto [min_x, max_x] = std::minmax_element(series->points.begin(), series->points.end());
  const double x0 = min_x->first, x1 = std::max(max_x->first, x0 + 1);
  double y0 = series->points[0].second, y1 = y0;
  for (const auto& [x, y] : series->points) y0 = std::min(y0, y), y1 = std::max(y1, y);
  if (y1 - y0 < 1e-12) y0 -= 0.5, y1 += 0.5;
  const auto to_x = [&](double x) { return area.left + (x - x0) / (x1 - x0) * area.width; };
  const auto to_y = [&](double y) { return area.top + (y1 - y) / (y1 - y0) * area.height; };
  draw_text(cr, area.left - 55, area.top + 10, fmt::format("{:.4g}", y1), 11);
  draw_text(cr, area.left - 55, area.top + area.height, fmt::format("{:.4g}", y0), 11);
  draw_text(cr, area.left, area.top + area.height + 18, fmt::format("step {:g}", x0), 11);
  draw_text(cr, area.left + area.width - 60, area.top + area.height + 18,
            fmt::format("step {:g}", x1), 11);
  draw_text(cr, area.left, area.top + area.height + 40, series->key, 11);
  cairo_set_source_rgb(cr, 0.12, 0.35, 0.75);
  cairo_set_line_width(cr, 2);
  for (std::size_t i = 0; i < series->points.size(); ++i) {
    const auto [x, y] = series->points[i];
    if (i == 0) {
      cairo_move_to(cr, to_x(x), to_y(y));
    } else {
      cairo_line_to(cr, to_x(x), to_y(y));
    }
  }
  if (series->points.size() == 1) cairo_arc(cr, to_x(x0), to_y(y0), 3, 0, 6.3);
  cairo_stroke(cr);
}

}  // namespace

bool write_metric_plot(const std::filesystem::path& path, const std::vector<StepMetrics>& history,
                       const std::vector<PlotPanel>& panels) {
  const int width = kPanelWidth * static_cast<int>(panels.size());
  const std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, kPlotHeight), cairo_surface_destroy);
  cairo_t* cr = cairo_create(surface.get());
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  for (std::size_t i = 0; i < panels.size(); ++i) {
    draw_panel(cr, static_cast<int>(i), panels[i], history);
  }
  cairo_destroy(cr);
  write_atomically(path, [&](const std::filesystem::path& temporary) {
    const cairo_status_t status = cairo_surface_write_to_png(surface.get(), temporary.c_str());
    if (status != CAIRO_STATUS_SUCCESS) {
      throw Error("plot: cannot write " + path.string() + ": " + cairo_status_to_string(status));
    }
  });
  return true;
}

#else

bool write_metric_plot(const std::filesystem::path&, const std::vector<StepMetrics>&,
                       const std::vector<PlotPanel>&) {
  return false;
}

#endif

}  // namespace verlpp::trainer
