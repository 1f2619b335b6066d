// generate_sequences with images (fp32 CPU) on the Qwen3.5 vision-language fixture
// (tests/fixtures/model/qwen3_5_vl_images, tools/make_vl_fixtures.py): greedy decoding from a
// prompt holding an image is token-identical to transformers' generate (the fixture's "greedy"),
// for every row of a batch where the n samples of the prompt share its prefill and a text-only row
// sits beside them; rows whose images differ are never forked from one another.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "rollout_test_util.h"
#include "verlpp/core/error.h"
#include "verlpp/model/safetensors.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::rollout {
namespace {

class RolloutImages : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/";
    std::ifstream in(dir + "qwen3_5_vl_images.json");
    meta_ = nlohmann::json::parse(in);
    const model::SafetensorsFile ref(dir + "qwen3_5_vl_images.reference.safetensors");
    pixels_ = ref.tensor("pixel_values").clone();
    grids_ = ref.tensor("image_grid_thw").clone();
    model_ = std::make_unique<model::CausalLM>(model::CausalLM::from_pretrained(
        dir + "qwen3_5_vl_images", at::kFloat, at::kCPU, /*with_vision=*/true));
  }

  // Image 0 of the fixture (the one in the greedy prompt): its rows of pixel_values, its grid.
  at::Tensor image0_pixels() const {
    const at::Tensor g = grids_[0];
    return pixels_.narrow(0, 0, (g[0] * g[1] * g[2]).item<int64_t>());
  }
  at::Tensor image0_grid() const { return grids_.narrow(0, 0, 1); }

  SamplingParams greedy(int64_t tokens) const {
    SamplingParams p;
    p.do_sample = false;
    p.temperature = 1.0;
    p.max_response_length = tokens;
    p.pad_token_id = 0;
    return p;
  }

  nlohmann::json meta_;
  at::Tensor pixels_, grids_;
  std::unique_ptr<model::CausalLM> model_;
};

TEST_F(RolloutImages, GreedyWithAnImageMatchesTransformersAndSharesThePrefill) {
  const std::vector<int64_t> prompt = meta_["greedy"]["prompt"];
  const std::vector<int64_t> expected = meta_["greedy"]["tokens"];
  const std::vector<int64_t> text = {55, 159, 158, 167, 255};
  const auto P = static_cast<int64_t>(prompt.size());
  data::Batch batch = testing::left_padded({prompt, prompt, text}, P, 0);
  const at::Tensor no_pixels = at::zeros({0, pixels_.size(1)});
  batch.set_row_tensors("pixel_values", {image0_pixels(), image0_pixels(), no_pixels});
  batch.set_row_tensors("image_grid_thw",
                        {image0_grid(), image0_grid(), at::zeros({0, 3}, at::kLong)});
  const auto R = static_cast<int64_t>(expected.size());
  const data::Batch out = generate_sequences(*model_, batch, greedy(R), 0);
  EXPECT_EQ(testing::row(out.tensor("responses"), 0), expected);
  EXPECT_EQ(testing::row(out.tensor("responses"), 1), expected);
  EXPECT_EQ(testing::row(out.tensor("responses"), 2),
            testing::greedy_by_recomputation(*model_, text, R));
  ASSERT_TRUE(out.has_row_tensors("pixel_values"));
  EXPECT_TRUE(out.row_tensors("pixel_values")[1].is_same(batch.row_tensors("pixel_values")[1]));
  // Text positions continue in the result (verl's row 0), whatever the M-RoPE streams were.
  EXPECT_EQ(out.tensor("position_ids")[0][P].item<int64_t>(), P);
}

TEST_F(RolloutImages, RowsWithDifferentImagesAreNotForked) {
  const std::vector<int64_t> prompt = meta_["greedy"]["prompt"];
  const auto P = static_cast<int64_t>(prompt.size());
  const at::Tensor other = 1.0 - image0_pixels();  // same grid, other pixels
  const auto run = [&](const std::vector<at::Tensor>& pixels) {
    data::Batch batch =
        testing::left_padded(std::vector<std::vector<int64_t>>(pixels.size(), prompt), P, 0);
    batch.set_row_tensors("pixel_values", pixels);
    batch.set_row_tensors("image_grid_thw", std::vector<at::Tensor>(pixels.size(), image0_grid()));
    return generate_sequences(*model_, batch, greedy(6), 0).tensor("responses");
  };
  const at::Tensor both = run({image0_pixels(), other});
  EXPECT_TRUE(at::equal(both[1], run({other})[0]));
  EXPECT_TRUE(at::equal(both[0], run({image0_pixels()})[0]));
  EXPECT_FALSE(at::equal(both[0], both[1]));
}

TEST_F(RolloutImages, ImagesNeedAVisionModelAndMatchingPads) {
  const std::vector<int64_t> prompt = meta_["greedy"]["prompt"];
  const auto P = static_cast<int64_t>(prompt.size());
  data::Batch batch = testing::left_padded({prompt}, P, 0);
  batch.set_row_tensors("pixel_values", {image0_pixels()});
  batch.set_row_tensors("image_grid_thw", {at::tensor({1, 4, 8}, at::kLong).view({1, 3})});
  try {
    generate_sequences(*model_, batch, greedy(2), 0);
    FAIL() << "a grid of 8 merged tokens for a run of 6 pads was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("prompt row 0"), std::string::npos) << e.what();
  }
  SamplingParams static_params = greedy(2);
  static_params.static_batches = true;
  batch.set_row_tensors("image_grid_thw", {image0_grid()});
  EXPECT_THROW(generate_sequences(*model_, batch, static_params, 0), Error);
}

}  // namespace
}  // namespace verlpp::rollout
