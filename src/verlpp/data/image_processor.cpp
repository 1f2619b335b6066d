#include "verlpp/data/image_processor.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "verlpp/core/error.h"
#include "verlpp/data/image_resize.h"

namespace verlpp::data {
namespace {

constexpr double kMaxAspectRatio = 200.0;

// Python's round(x) (half to even) for a finite double, as an integer.
std::int64_t python_round(double x) { return static_cast<std::int64_t>(std::nearbyint(x)); }

}  // namespace

std::pair<int, int> smart_resize(int height, int width, const ResizeBounds& b) {
  if (height < 1 || width < 1) {
    throw Error(fmt::format("smart_resize: image of {}x{} pixels (width x height) is empty", width,
                            height));
  }
  const double ratio = static_cast<double>(std::max(height, width)) / std::min(height, width);
  if (ratio > kMaxAspectRatio) {
    throw Error(
        fmt::format("smart_resize: image of {}x{} pixels has an aspect ratio of {:.1f}, above 200",
                    width, height, ratio));
  }
  const int f = b.factor;
  if (!b.clamp_small_sides && (height < f || width < f)) {
    throw Error(fmt::format("smart_resize: image of {}x{} pixels has a side below the factor {}",
                            width, height, f));
  }
  const auto at_least = [&](std::int64_t side) {
    return b.clamp_small_sides ? std::max<std::int64_t>(side, f) : side;
  };
  std::int64_t h = at_least(python_round(static_cast<double>(height) / f) * f);
  std::int64_t w = at_least(python_round(static_cast<double>(width) / f) * f);
  const double area = static_cast<double>(height) * width;
  if (h * w > b.max_pixels) {
    const double beta = std::sqrt(area / static_cast<double>(b.max_pixels));
    h = std::max<std::int64_t>(f, static_cast<std::int64_t>(std::floor(height / beta / f)) * f);
    w = std::max<std::int64_t>(f, static_cast<std::int64_t>(std::floor(width / beta / f)) * f);
  } else if (h * w < b.min_pixels) {
    const double beta = std::sqrt(static_cast<double>(b.min_pixels) / area);
    h = static_cast<std::int64_t>(std::ceil(height * beta / f)) * f;
    w = static_cast<std::int64_t>(std::ceil(width * beta / f)) * f;
  }
  return {static_cast<int>(h), static_cast<int>(w)};
}

ResizeBounds fetch_image_bounds(int patch_size, int merge_size) {
  const int factor = patch_size * merge_size;
  const std::int64_t token_pixels = static_cast<std::int64_t>(factor) * factor;
  return {factor, 4 * token_pixels, 16384 * token_pixels, /*clamp_small_sides=*/true};
}

RgbImage fetch_image(const RgbImage& image, const ResizeBounds& bounds) {
  const auto [h, w] = smart_resize(image.height, image.width, bounds);
  return resize_bicubic(image, w, h);
}

ResizeBounds processor_bounds(const ImageProcessorConfig& c) {
  return {c.patch_size * c.merge_size, c.min_pixels, c.max_pixels, /*clamp_small_sides=*/false};
}

ProcessedImage process_image(const RgbImage& image, const ImageProcessorConfig& c) {
  const ResizeBounds bounds = processor_bounds(c);
  const auto [h, w] = smart_resize(image.height, image.width, bounds);
  ProcessedImage out;
  out.resized = resize_bicubic(image, w, h, BicubicFixedPoint::kTorchUint8);
  const int P = c.patch_size, M = c.merge_size, T = c.temporal_patch_size;
  const int gh = h / P, gw = w / P;
  // [H, W, C] u8 -> [C, H, W] fp32, normalised as the fast processor fuses it.
  at::Tensor x = at::from_blob(out.resized.pixels.data(), {h, w, 3}, at::kByte)
                     .permute({2, 0, 1})
                     .to(at::kFloat);
  const at::Tensor mean = at::tensor(std::vector<float>(c.image_mean.begin(), c.image_mean.end()));
  const at::Tensor stdev = at::tensor(std::vector<float>(c.image_std.begin(), c.image_std.end()));
  x = (x - (mean * 255.0f).view({3, 1, 1})) / (stdev * 255.0f).view({3, 1, 1});
  // One frame repeated to T: [T, C, H, W] -> (1, T, C, gh/M, M, P, gw/M, M, P) -> rows.
  out.pixel_values = x.unsqueeze(0)
                         .expand({T, 3, h, w})
                         .reshape({1, T, 3, gh / M, M, P, gw / M, M, P})
                         .permute({0, 3, 6, 4, 7, 2, 1, 5, 8})
                         .reshape({gh * gw, 3 * T * P * P})
                         .contiguous();
  out.grid_thw = {1, gh, gw};
  return out;
}

}  // namespace verlpp::data
