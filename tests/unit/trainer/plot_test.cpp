#include "verlpp/trainer/plot.h"

#include <gtest/gtest.h>

#include <filesystem>

#ifdef VERLPP_HAVE_CAIRO
#include <cairo.h>
#endif

namespace verlpp::trainer {
namespace {

#ifdef VERLPP_HAVE_CAIRO
struct Pixel {
  int r, g, b;
};

Pixel pixel_at(cairo_surface_t* image, double x, double y) {
  const unsigned char* data = cairo_image_surface_get_data(image);
  const int stride = cairo_image_surface_get_stride(image);
  const auto* row = reinterpret_cast<const std::uint32_t*>(data + static_cast<int>(y) * stride);
  const std::uint32_t argb = row[static_cast<int>(x)];
  return {static_cast<int>((argb >> 16) & 255), static_cast<int>((argb >> 8) & 255),
          static_cast<int>(argb & 255)};
}
#endif

TEST(MetricPlot, DrawsTheRewardLineAndLeavesEmptyPanelsBlank) {
#ifndef VERLPP_HAVE_CAIRO
  GTEST_SKIP() << "built without cairo";
#else
  const auto path = std::filesystem::temp_directory_path() / "verlpp_plot_test.png";
  std::vector<StepMetrics> history = {{1, {{"critic/score/mean", 0.0}}},
                                      {2, {{"critic/score/mean", 0.5}}},
                                      {3, {{"critic/score/mean", 1.0}}}};
  ASSERT_TRUE(write_metric_plot(path, history, default_plot_panels()));
  cairo_surface_t* image = cairo_image_surface_create_from_png(path.c_str());
  ASSERT_EQ(cairo_surface_status(image), CAIRO_STATUS_SUCCESS);
  EXPECT_EQ(cairo_image_surface_get_width(image), 3 * kPanelWidth);
  EXPECT_EQ(cairo_image_surface_get_height(image), kPlotHeight);
  // The series rises linearly from the bottom-left to the top-right corner of the data area, so
  // the area's centre lies on the (blue) line and its top-left interior stays white.
  const PlotArea reward = plot_area(0);
  const Pixel centre =
      pixel_at(image, reward.left + reward.width / 2, reward.top + reward.height / 2);
  EXPECT_GT(centre.b, centre.r + 60);
  const Pixel corner = pixel_at(image, reward.left + 15, reward.top + 15);
  EXPECT_EQ(corner.r + corner.g + corner.b, 3 * 255);
  // No KL metric was logged: the KL panel's data area has no line.
  const PlotArea kl = plot_area(2);
  const Pixel empty = pixel_at(image, kl.left + kl.width / 4, kl.top + kl.height / 4);
  EXPECT_EQ(empty.r + empty.g + empty.b, 3 * 255);
  cairo_surface_destroy(image);
  std::filesystem::remove(path);
#endif
}

}  // namespace
}  // namespace verlpp::trainer
