// The images of a dataset row in verl's schema (data.image_key, "images" by default; verl's
// rl_dataset.py _build_messages and the agent loop's process_vision_info; multimodal.md §1, §4):
// reading the image column, turning each "<image>" placeholder of the chat messages into an image
// item of a content list, processing the images for a Qwen-VL model and expanding each image pad
// token of the templated prompt into the image's run of pad tokens.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "verlpp/data/image_processor.h"
#include "verlpp/data/row.h"

namespace verlpp::data {

// One entry of the image column, as verl's geo3k.py writes it (the Hugging Face Image feature:
// {"bytes": PNG/JPEG bytes, "path": ...}) or as a plain path string. Bytes win over a path, as
// in datasets' Image.decode_example. `bytes` views the row's own string (no copy of the image):
// an ImageRef is valid while its row is.
struct ImageRef {
  std::string_view bytes;  // encoded image (Parquet binary); empty: read `path`
  std::string path;        // absolute, or relative to the folder of the row's data file
};

// What the image side of the dataset does: verl's data.image_key, qwen-vl-utils' first resize
// (fetch_image) and the processor's settings, and the pad token each image expands into.
struct ImageSettings {
  std::string image_key = "images";  // empty: rows have no images
  ResizeBounds fetch = fetch_image_bounds();
  ImageProcessorConfig processor;
  std::string image_pad_token = "<|image_pad|>";  // Qwen3VLProcessor's image_token
};

// The row's images in order; none when the row lacks the column or holds null or []. Throws
// verlpp::Error naming `origin` when the column is not a list of {"bytes"|"path": str} objects or
// path strings.
std::vector<ImageRef> image_refs(const Row& row, const std::string& image_key,
                                 const RowOrigin& origin);

// The chat messages with every string content holding "<image>" split into a content list
// ({"type": "image"} for each placeholder, {"type": "text", "text": ...} for each non-empty piece
// between them), as _build_messages does. Throws verlpp::Error naming `origin` when the number of
// placeholders differs from `images` (verl asserts every image is used once).
Row image_messages(const Row& messages, std::size_t images, const RowOrigin& origin);

// The encoded bytes of image `k` of the row: its bytes, or its file's (a relative path from the
// folder of the row's data file). Throws verlpp::Error naming the row, the image, the path and the
// OS's reason when the file cannot be read.
std::string read_image_bytes(const ImageRef& ref, const RowOrigin& origin, std::size_t k);

// Reads and decodes image `k` of the row (image_decode.h), an error naming the row and image.
RgbImage load_image(const ImageRef& ref, const RowOrigin& origin, std::size_t k);

// fetch_image (smart_resize to multiples of 32, Pillow's bicubic) then the processor's resize,
// rescale, normalise and patchify: what verl's rollout and actor receive for the image.
ProcessedImage prepare_image(const RgbImage& image, const ImageSettings& settings);

// The pad tokens the image takes without resampling it: the sizes both resizes give.
std::int64_t image_token_count(int width, int height, const ImageSettings& settings);

// `ids` with the k-th occurrence of `pad_id` repeated counts[k] times (the processor's
// replace_image_token). Throws verlpp::Error naming `where` when the occurrences differ in number
// from `counts` (a chat template that does not render image items, or a pad token in the text).
std::vector<std::int32_t> expand_image_pads(const std::vector<std::int32_t>& ids,
                                            std::int32_t pad_id,
                                            const std::vector<std::int64_t>& counts,
                                            const std::string& where);

// A row's processed images as the batch holds them: pixel_values [patches, C T P P] fp32 (their
// rows concatenated in order) and image_grid_thw int64 [images, 3]; [0, C T P P] and [0, 3] for a
// row without images.
struct RowImageTensors {
  at::Tensor pixel_values;
  at::Tensor image_grid_thw;
};
RowImageTensors row_image_tensors(const std::vector<ProcessedImage>& images,
                                  const ImageProcessorConfig& config);

}  // namespace verlpp::data
