// An 8-bit RGB image in memory: what verlpp's image pipeline passes between decoding, resizing and
// the Qwen-VL processor.
#pragma once

#include <cstdint>
#include <vector>

namespace verlpp::data {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;  // [height, width, 3] row-major, R G B

  std::uint8_t at(int y, int x, int c) const {
    return pixels[(static_cast<std::size_t>(y) * width + x) * 3 + c];
  }
};

}  // namespace verlpp::data
