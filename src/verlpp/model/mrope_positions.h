// M-RoPE position ids of one sequence holding images, as Qwen3.5 / Qwen2-VL's get_rope_index
// computes them (multimodal.md §5.1): three streams (t, h, w). Text tokens (vision start/end
// included) take cur, cur + 1, ... on all three streams; each run of image pad tokens is the next
// image of `image_grids`, (t, h, w) in patches, whose h / M x w / M merged tokens go row-major and
// take t = cur, h = cur + row, w = cur + column, after which cur += max(h / M, w / M).
// rope_delta = (largest position + 1) - length: decoding continues every stream at
// (index + rope_delta) (§5.2). A sequence without images gets 0..L-1 on all streams, delta 0.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <vector>

namespace verlpp::model {

struct MropePositions {
  at::Tensor positions;  // [3, L] int64, CPU
  int64_t rope_delta = 0;
};

// Throws verlpp::Error when the image pad runs do not match `image_grids` (count, or a run's
// length against t h w / merge_size^2), naming the run.
MropePositions mrope_positions(const std::vector<int64_t>& input_ids,
                               const std::vector<std::array<int64_t, 3>>& image_grids,
                               int64_t image_token_id, int64_t merge_size);

// The rows of image_grid_thw int64 [images, 3] (any device) as (t, h, w) triples. Throws
// verlpp::Error for another shape.
std::vector<std::array<int64_t, 3>> image_grids(const at::Tensor& image_grid_thw);

}  // namespace verlpp::model
