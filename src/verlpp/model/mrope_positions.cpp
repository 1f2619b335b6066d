#include "verlpp/model/mrope_positions.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "verlpp/core/error.h"

namespace verlpp::model {

MropePositions mrope_positions(const std::vector<int64_t>& ids,
                               const std::vector<std::array<int64_t, 3>>& grids,
                               int64_t image_token_id, int64_t merge_size) {
  const auto L = static_cast<int64_t>(ids.size());
  at::Tensor positions = at::empty({3, L}, at::kLong);
  auto p = positions.accessor<int64_t, 2>();
  int64_t cur = 0, largest = -1;
  std::size_t image = 0;
  for (int64_t i = 0; i < L;) {
    if (ids[i] != image_token_id) {
      for (int s = 0; s < 3; ++s) p[s][i] = cur;
      largest = std::max(largest, cur++);
      ++i;
      continue;
    }
    int64_t run = 0;
    while (i + run < L && ids[i + run] == image_token_id) ++run;
    if (image >= grids.size()) {
      throw Error(
          fmt::format("M-RoPE positions: image pad run {} (tokens {}..{}) has no "
                      "image_grid_thw row ({} given)",
                      image, i, i + run - 1, grids.size()));
    }
    const auto [t, h, w] = grids[image];
    const int64_t rows = h / merge_size, cols = w / merge_size;
    if (t * rows * cols != run) {
      throw Error(fmt::format(
          "M-RoPE positions: image {} has grid ({}, {}, {}) = {} tokens after "
          "{}x{} merging, but its pad run (tokens {}..{}) has {}",
          image, t, h, w, t * rows * cols, merge_size, merge_size, i, i + run - 1, run));
    }
    for (int64_t k = 0; k < run; ++k) {
      const int64_t within = k % (rows * cols);
      p[0][i + k] = cur + k / (rows * cols);
      p[1][i + k] = cur + within / cols;
      p[2][i + k] = cur + within % cols;
    }
    largest = std::max(largest, cur + std::max({t - 1, rows - 1, cols - 1}));
    cur = largest + 1;
    i += run;
    ++image;
  }
  if (image != grids.size()) {
    throw Error(fmt::format("M-RoPE positions: {} image_grid_thw rows but {} image pad runs",
                            grids.size(), image));
  }
  return {positions, largest + 1 - L};
}

std::vector<std::array<int64_t, 3>> image_grids(const at::Tensor& image_grid_thw) {
  if (image_grid_thw.dim() != 2 || image_grid_thw.size(1) != 3) {
    throw Error(fmt::format("image_grid_thw must be [images, 3], got [{}]",
                            fmt::join(image_grid_thw.sizes(), ", ")));
  }
  const at::Tensor host = image_grid_thw.to(at::kCPU, at::kLong).contiguous();
  const int64_t* v = host.data_ptr<int64_t>();
  std::vector<std::array<int64_t, 3>> grids;
  for (int64_t i = 0; i < host.size(0); ++i)
    grids.push_back({v[3 * i], v[3 * i + 1], v[3 * i + 2]});
  return grids;
}

}  // namespace verlpp::model
