#include "verlpp/data/image_resize.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

constexpr int kPillowBits = 32 - 8 - 2;
constexpr double kSupport = 2.0;

double bicubic(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return (((x - 5.0) * x + 8.0) * x - 4.0) * a;
  return 0.0;
}

// One side's taps: output i reads inputs [first[i], first[i] + count[i]) with weights
// weights[i * ksize + j] in `bits`-bit fixed point.
struct Taps {
  int ksize = 0, bits = kPillowBits;
  std::vector<int> first, count;
  std::vector<std::int32_t> weights;
};

std::int32_t to_fixed(double k, int bits) {
  const double fixed = k * static_cast<double>(1 << bits);
  return static_cast<std::int32_t>(k < 0 ? -0.5 + fixed : 0.5 + fixed);
}

// ATen's int16 weight precision: the largest p < 22 with (int)(0.5 + max 2^(p + 1)) < 2^15.
int torch_uint8_bits(const std::vector<double>& normalised) {
  double largest = normalised.empty() ? 0.0 : normalised[0];
  for (double v : normalised) largest = std::max(largest, v);
  int bits = 0;
  for (; bits < 22; ++bits) {
    if (static_cast<int>(0.5 + largest * static_cast<double>(1 << (bits + 1))) >= (1 << 15)) break;
  }
  return bits;
}

Taps precompute(int in_size, int out_size, BicubicFixedPoint fixed_point) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filterscale = std::max(scale, 1.0);
  const double support = kSupport * filterscale;
  const double inverse = 1.0 / filterscale;  // Pillow multiplies by it (not divides)
  Taps taps;
  taps.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  taps.first.resize(out_size);
  taps.count.resize(out_size);
  std::vector<double> normalised(static_cast<std::size_t>(out_size) * taps.ksize, 0.0);
  std::vector<double> w(taps.ksize);
  for (int i = 0; i < out_size; ++i) {
    const double center = (i + 0.5) * scale;
    const int xmin = std::max(static_cast<int>(center - support + 0.5), 0);
    const int xmax = std::min(static_cast<int>(center + support + 0.5), in_size) - xmin;
    double total = 0.0;
    for (int x = 0; x < xmax; ++x) {
      w[x] = bicubic((x + xmin - center + 0.5) * inverse);
      total += w[x];
    }
    for (int x = 0; x < xmax; ++x) {
      normalised[static_cast<std::size_t>(i) * taps.ksize + x] = total != 0.0 ? w[x] / total : w[x];
    }
    taps.first[i] = xmin;
    taps.count[i] = std::max(xmax, 0);
  }
  taps.bits =
      fixed_point == BicubicFixedPoint::kPillow ? kPillowBits : torch_uint8_bits(normalised);
  taps.weights.reserve(normalised.size());
  for (double k : normalised) taps.weights.push_back(to_fixed(k, taps.bits));
  return taps;
}

std::uint8_t clip8(std::int32_t v, int bits) {
  if (v >= (1 << bits << 8)) return 255;
  if (v <= 0) return 0;
  return static_cast<std::uint8_t>(v >> bits);
}

RgbImage resample_horizontal(const RgbImage& in, int width, BicubicFixedPoint fixed_point) {
  const Taps taps = precompute(in.width, width, fixed_point);
  RgbImage out{width, in.height,
               std::vector<std::uint8_t>(static_cast<std::size_t>(width) * in.height * 3)};
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < width; ++x) {
      const std::int32_t* k = taps.weights.data() + static_cast<std::size_t>(x) * taps.ksize;
      for (int c = 0; c < 3; ++c) {
        std::int32_t sum = 1 << (taps.bits - 1);
        for (int j = 0; j < taps.count[x]; ++j) sum += in.at(y, taps.first[x] + j, c) * k[j];
        out.pixels[(static_cast<std::size_t>(y) * width + x) * 3 + c] = clip8(sum, taps.bits);
      }
    }
  }
  return out;
}

RgbImage resample_vertical(const RgbImage& in, int height, BicubicFixedPoint fixed_point) {
  const Taps taps = precompute(in.height, height, fixed_point);
  RgbImage out{in.width, height,
               std::vector<std::uint8_t>(static_cast<std::size_t>(in.width) * height * 3)};
  for (int y = 0; y < height; ++y) {
    const std::int32_t* k = taps.weights.data() + static_cast<std::size_t>(y) * taps.ksize;
    for (int x = 0; x < in.width; ++x) {
      for (int c = 0; c < 3; ++c) {
        std::int32_t sum = 1 << (taps.bits - 1);
        for (int j = 0; j < taps.count[y]; ++j) sum += in.at(taps.first[y] + j, x, c) * k[j];
        out.pixels[(static_cast<std::size_t>(y) * in.width + x) * 3 + c] = clip8(sum, taps.bits);
      }
    }
  }
  return out;
}

}  // namespace

RgbImage resize_bicubic(const RgbImage& image, int width, int height,
                        BicubicFixedPoint fixed_point) {
  if (width < 1 || height < 1) {
    throw Error(fmt::format("resize_bicubic: target size {}x{} (width x height) must be at least 1",
                            width, height));
  }
  if (image.width < 1 || image.height < 1) {
    throw Error(fmt::format("resize_bicubic: empty source image {}x{}", image.width, image.height));
  }
  RgbImage out = image.width == width ? image : resample_horizontal(image, width, fixed_point);
  return out.height == height ? out : resample_vertical(out, height, fixed_point);
}

}  // namespace verlpp::data
