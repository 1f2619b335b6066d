// The image side of verl's Qwen-VL rollout and training (multimodal.md §3): qwen-vl-utils'
// fetch_image (first resize) and transformers' Qwen2VL image processor (second resize, rescale,
// normalise, patchify), for Qwen3.5's preprocessor_config.json by default.
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <utility>

#include "verlpp/data/rgb_image.h"

namespace verlpp::data {

// smart_resize's bounds: sides become multiples of `factor` (Python's round, half to even) and the
// area is brought into [min_pixels, max_pixels] keeping the aspect ratio. qwen-vl-utils' copy
// clamps each side to at least `factor`; transformers' copy refuses a side below it.
struct ResizeBounds {
  int factor = 32;
  std::int64_t min_pixels = 0;
  std::int64_t max_pixels = 0;
  bool clamp_small_sides = true;
};

// (height, width) after smart_resize. Throws verlpp::Error when the aspect ratio exceeds 200, a
// side is below 1, or (transformers' copy) a side is below the factor.
std::pair<int, int> smart_resize(int height, int width, const ResizeBounds& bounds);

// qwen-vl-utils' bounds for patch 16 x merge 2: factor 32, 4 to 16,384 tokens of 32 x 32 pixels.
ResizeBounds fetch_image_bounds(int patch_size = 16, int merge_size = 2);

// qwen-vl-utils' fetch_image after to_rgb (image_decode.h): smart_resize, then Pillow's bicubic.
RgbImage fetch_image(const RgbImage& image, const ResizeBounds& bounds = fetch_image_bounds());

// Qwen2VLImageProcessor's settings (Qwen3.5's preprocessor_config.json values by default).
struct ImageProcessorConfig {
  int patch_size = 16;
  int temporal_patch_size = 2;
  int merge_size = 2;
  std::int64_t min_pixels = 65536;     // size.shortest_edge
  std::int64_t max_pixels = 16777216;  // size.longest_edge
  std::array<float, 3> image_mean = {0.5f, 0.5f, 0.5f};
  std::array<float, 3> image_std = {0.5f, 0.5f, 0.5f};
};

struct ProcessedImage {
  // [grid_t grid_h grid_w, 3 T P P] fp32: rows in (t, h / M, w / M, M, M) order (each merge block's
  // M x M patches consecutive), each row channel-major, then frame, then patch row and column; a
  // single image is repeated to T frames. value = (u8 - 255 mean) / (255 std), in fp32.
  at::Tensor pixel_values;
  std::array<std::int64_t, 3> grid_thw{};  // (t, h, w) in patches, before merging
  RgbImage resized;                        // the image after the processor's resize

  // Image pad tokens this image takes in the prompt: t h w / M^2.
  std::int64_t tokens(int merge_size) const {
    return grid_thw[0] * grid_thw[1] * grid_thw[2] / (merge_size * merge_size);
  }
};

// The processor's smart_resize bounds: factor patch x merge, its min/max pixels, small sides
// refused (transformers' copy).
ResizeBounds processor_bounds(const ImageProcessorConfig& config);

// The processor's smart_resize (factor patch x merge), the bicubic resize of transformers'
// torchvision backend (uint8, antialiased; image_resize.h kTorchUint8), rescale, normalise and
// patchify.
ProcessedImage process_image(const RgbImage& image, const ImageProcessorConfig& config = {});

}  // namespace verlpp::data
