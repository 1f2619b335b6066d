// Qwen3.5's vision tower against transformers (tests/fixtures/model/qwen3_5_vl_images, made by
// tools/make_vl_fixtures.py: a 2-block tower, head_dim 16, a 4 x 4 position table resampled to
// 4 x 6 and 10 x 2 patch grids; the reference's image_embeds are transformers' merger outputs in
// float64, whose vision rotary runs in fp32 as in transformers).
#include "verlpp/model/vision/qwen3_5_vision.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "verlpp/core/error.h"
#include "verlpp/model/checkpoint.h"
#include "verlpp/model/safetensors.h"

namespace verlpp::model {
namespace {

const std::string kDir = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/";

TEST(Qwen3_5Vision, ConfigFromTheVlCheckpoint) {
  const ModelConfig c = load_model_config(kDir + "qwen3_5_vl_images");
  ASSERT_TRUE(c.vision.has_value());
  EXPECT_EQ(c.vision->depth, 2);
  EXPECT_EQ(c.vision->head_dim(), 16);
  EXPECT_EQ(c.vision->grid_per_side(), 4);
  EXPECT_EQ(c.vision->patch_dim(), 96);
  EXPECT_EQ(c.vision->image_token_id, 300);
  EXPECT_EQ(c.vision->vision_start_token_id, 298);
}

TEST(Qwen3_5Vision, BadVisionConfigsAreErrors) {
  nlohmann::json top = nlohmann::json::parse(R"({
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
    "text_config": {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 1,
      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 24, "vocab_size": 304,
      "max_position_embeddings": 512, "layer_types": ["full_attention"]},
    "vision_config": {"hidden_size": 32, "num_heads": 2, "num_position_embeddings": 16}})");
  EXPECT_NO_THROW(parse_model_config(top, "config.json"));
  top["vision_config"]["num_position_embeddings"] = 15;
  EXPECT_THROW(parse_model_config(top, "config.json"), Error);  // not a square table
  top["vision_config"]["num_position_embeddings"] = 16;
  top["vision_config"]["num_heads"] = 4;  // head_dim 8 is fine; 3 heads would not divide 32
  EXPECT_NO_THROW(parse_model_config(top, "config.json"));
  top["vision_config"]["num_heads"] = 3;
  EXPECT_THROW(parse_model_config(top, "config.json"), Error);
  top["vision_config"]["num_heads"] = 2;
  top["vision_config"]["hidden_act"] = "relu";
  EXPECT_THROW(parse_model_config(top, "config.json"), Error);
}

TEST(Qwen3_5Vision, ImageFeaturesMatchTransformers) {
  const ModelConfig c = load_model_config(kDir + "qwen3_5_vl_images");
  Qwen3_5Vision vision(*c.vision);
  vision.load(CheckpointReader(kDir + "qwen3_5_vl_images"), at::kFloat, at::Device(at::kCPU));
  const SafetensorsFile ref(kDir + "qwen3_5_vl_images.reference.safetensors");
  const at::Tensor grid = ref.tensor("image_grid_thw");
  std::vector<std::array<int64_t, 3>> grids;
  for (int64_t i = 0; i < grid.size(0); ++i) {
    grids.push_back(
        {grid[i][0].item<int64_t>(), grid[i][1].item<int64_t>(), grid[i][2].item<int64_t>()});
  }
  const at::Tensor features = vision.forward(ref.tensor("pixel_values"), grids);
  const at::Tensor expected = ref.tensor("image_embeds");
  ASSERT_EQ(features.sizes(), expected.sizes());
  const double diff = (features - expected).abs().max().item<double>();
  std::printf("vision tower fp32: max |features - transformers float64| = %g\n", diff);
  EXPECT_LT(diff, 1e-5);
  // A grid that does not match the rows is an error naming the shapes.
  EXPECT_THROW(vision.forward(ref.tensor("pixel_values"), {grids[0]}), Error);
  EXPECT_THROW(vision.forward(ref.tensor("pixel_values"), {{1, 3, 6}}), Error);
}

}  // namespace
}  // namespace verlpp::model
