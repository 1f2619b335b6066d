// Qwen3.5's vision tower (transformers' Qwen3_5VisionModel; multimodal.md §2), on ATen tensors
// with the checkpoint's names under model.visual.*:
//   patch embedding (a Conv3d with kernel = stride = (T, P, P), i.e. a linear map of each
//   pixel_values row), plus the learned position table resampled bilinearly (align_corners) to
//   each image's patch grid in merge-block order; blocks of pre-LayerNorm (eps 1e-6)
//   bidirectional attention within each image frame with 2-D rotary embeddings (rows on the
//   first quarter of head_dim's frequencies, columns on the second; in fp32) and a
//   GELU(tanh) MLP; the merger: LayerNorm per patch, 2 x 2 patches concatenated, fc1, GELU (erf),
//   fc2 to the language model's width.
// Input rows come from data/image_processor.h (each merge block's patches consecutive).
#pragma once

#include <ATen/core/Tensor.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/model/model_config.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

class CheckpointReader;

class Qwen3_5Vision {
 public:
  explicit Qwen3_5Vision(const VisionConfig& config);
  Qwen3_5Vision(const Qwen3_5Vision&) = delete;
  Qwen3_5Vision& operator=(const Qwen3_5Vision&) = delete;

  const VisionConfig& config() const { return config_; }
  // Every parameter, named model.visual.* (the hub layout).
  const WeightTable& table() const { return table_; }
  // Reads the model.visual.* tensors of `reader` (cast to dtype on device). Throws verlpp::Error
  // naming a missing or mis-shaped tensor.
  void load(const CheckpointReader& reader, at::ScalarType dtype, const at::Device& device);

  // pixel_values [sum t h w, C T P P] (any float dtype; cast to the weights'), grids: one
  // (t, h, w) per image in patches. Returns the merged image features [sum t h w / M^2,
  // out_hidden_size] in the weights' dtype, images in order. Throws verlpp::Error when the rows
  // do not match the grids or a grid side is not a multiple of the merge size.
  at::Tensor forward(const at::Tensor& pixel_values,
                     const std::vector<std::array<int64_t, 3>>& grids) const;

 private:
  struct Block {
    at::Tensor norm1_weight, norm1_bias, qkv_weight, qkv_bias, proj_weight, proj_bias;
    at::Tensor norm2_weight, norm2_bias, fc1_weight, fc1_bias, fc2_weight, fc2_bias;
  };
  void declare();
  at::Tensor block(const Block& b, const at::Tensor& x, const at::Tensor& cos,
                   const at::Tensor& sin, const std::vector<int64_t>& frames) const;

  VisionConfig config_;
  WeightTable table_;
  at::Tensor patch_weight, patch_bias, pos_embed;
  std::vector<Block> blocks_;
  at::Tensor merger_norm_weight, merger_norm_bias, merger_fc1_weight, merger_fc1_bias;
  at::Tensor merger_fc2_weight, merger_fc2_bias;
};

}  // namespace verlpp::model
