// M-RoPE: position ids of sequences with images (multimodal.md §5.1, worked by hand) and the
// interleaved frequency assignment of the rotary tables (§5.4).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "verlpp/core/error.h"
#include "verlpp/model/layers/rope.h"
#include "verlpp/model/mrope_positions.h"
#include "verlpp/model/safetensors.h"

namespace verlpp::model {
namespace {

constexpr int64_t kImage = 9, kStart = 7, kEnd = 8;

TEST(MropePositions, OneImageBetweenText) {
  // a b <start> [6 pads: grid (1, 4, 6) merged 2x2 -> 2 x 3] <end> c
  const std::vector<int64_t> ids = {1,      2,      kStart, kImage, kImage, kImage,
                                    kImage, kImage, kImage, kEnd,   3};
  const MropePositions m = mrope_positions(ids, {{1, 4, 6}}, kImage, 2);
  // Text 0, 1, 2; the image at cur 3: t 3, h 3 + row, w 3 + column; then cur = 3 + max(2, 3).
  const at::Tensor expected = at::tensor({0, 1, 2, 3, 3, 3, 3, 3, 3, 6, 7,   // t
                                          0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7,   // h
                                          0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7},  // w
                                         at::kLong)
                                  .view({3, 11});
  EXPECT_TRUE(at::equal(m.positions, expected)) << m.positions;
  EXPECT_EQ(m.rope_delta, 8 - 11);  // max(2, 3) - 2 * 3
}

TEST(MropePositions, TwoImagesAndTextOnly) {
  // Tall image (1, 6, 2) -> 3 x 1 tokens, then a 1 x 1 image (1, 2, 2).
  const std::vector<int64_t> ids = {kStart, kImage, kImage, kImage, kEnd, kStart, kImage, kEnd};
  const MropePositions m = mrope_positions(ids, {{1, 6, 2}, {1, 2, 2}}, kImage, 2);
  const at::Tensor expected = at::tensor({0, 1, 1, 1, 4, 5, 6, 7,   // t
                                          0, 1, 2, 3, 4, 5, 6, 7,   // h
                                          0, 1, 1, 1, 4, 5, 6, 7},  // w
                                         at::kLong)
                                  .view({3, 8});
  EXPECT_TRUE(at::equal(m.positions, expected)) << m.positions;
  EXPECT_EQ(m.rope_delta, 0);  // (3 - 3) + (1 - 1)
  const MropePositions text = mrope_positions({4, 5, 6}, {}, kImage, 2);
  EXPECT_TRUE(at::equal(text.positions, at::arange(3, at::kLong).expand({3, 3})));
  EXPECT_EQ(text.rope_delta, 0);
}

TEST(MropePositions, MismatchedGridsAreErrors) {
  const std::vector<int64_t> ids = {kStart, kImage, kImage, kEnd};
  EXPECT_THROW(mrope_positions(ids, {}, kImage, 2), Error);           // no grid for the run
  EXPECT_THROW(mrope_positions(ids, {{1, 2, 2}}, kImage, 2), Error);  // 1 token, run of 2
  EXPECT_THROW(mrope_positions(ids, {{1, 2, 4}, {1, 2, 2}}, kImage, 2), Error);  // extra grid
}

// transformers' get_rope_index on the three sequences of the VL fixture (one image; two images;
// text only), tools/make_vl_fixtures.py.
TEST(MropePositions, MatchTransformersOnTheVlFixture) {
  const SafetensorsFile ref(std::string(VERLPP_SOURCE_DIR) +
                            "/tests/fixtures/model/qwen3_5_vl_images.reference.safetensors");
  const at::Tensor ids = ref.tensor("input_ids"), cu = ref.tensor("cu_seqlens").to(at::kLong);
  const at::Tensor positions = ref.tensor("position_ids"), deltas = ref.tensor("rope_deltas");
  const at::Tensor grids = ref.tensor("image_grid_thw");
  int64_t next_grid = 0;
  for (int64_t s = 0; s + 1 < cu.size(0); ++s) {
    const int64_t a = cu[s].item<int64_t>(), b = cu[s + 1].item<int64_t>();
    const at::Tensor seq = ids.slice(0, a, b).contiguous();
    const std::vector<int64_t> seq_ids(seq.data_ptr<int64_t>(), seq.data_ptr<int64_t>() + (b - a));
    std::vector<std::array<int64_t, 3>> seq_grids;
    bool in_run = false;
    for (int64_t id : seq_ids) {
      if (id == 300 && !in_run) {
        seq_grids.push_back({grids[next_grid][0].item<int64_t>(),
                             grids[next_grid][1].item<int64_t>(),
                             grids[next_grid][2].item<int64_t>()});
        ++next_grid;
      }
      in_run = id == 300;
    }
    const MropePositions m = mrope_positions(seq_ids, seq_grids, 300, 2);
    EXPECT_TRUE(at::equal(m.positions, positions.slice(1, a, b))) << "sequence " << s;
    EXPECT_EQ(m.rope_delta, deltas[s].item<int64_t>()) << "sequence " << s;
  }
  EXPECT_EQ(next_grid, grids.size(0));
}

TEST(MropeRope, InterleavedStreams) {
  // r/2 = 5 frequencies, section (2, 2, 1): j = 0 t, 1 h, 2 w, 3 t, 4 h (4 < 6); j = 5 would be w
  // only if 5 < 3.
  const at::Tensor inv_freq = at::tensor({1.0f, 0.5f, 0.25f, 0.125f, 0.0625f});
  const at::Tensor positions = at::tensor({3, 10, 20}, at::kLong).view({3, 1});
  const RopeTables tables = rope_tables(inv_freq, positions, at::kFloat, {2, 2, 1});
  const std::vector<float> angle = {3 * 1.0f, 10 * 0.5f, 20 * 0.25f, 3 * 0.125f, 10 * 0.0625f};
  ASSERT_EQ(tables.cos.sizes(), (at::IntArrayRef{1, 10}));
  for (int j = 0; j < 5; ++j) {
    EXPECT_FLOAT_EQ(tables.cos[0][j].item<float>(), std::cos(angle[j])) << j;
    EXPECT_FLOAT_EQ(tables.cos[0][j + 5].item<float>(), std::cos(angle[j])) << j;
    EXPECT_FLOAT_EQ(tables.sin_signed[0][j + 5].item<float>(), std::sin(angle[j])) << j;
  }
  // Equal streams reduce to plain RoPE.
  const at::Tensor same = at::tensor({4, 4, 4}, at::kLong).view({3, 1});
  const RopeTables plain = rope_tables(inv_freq, at::tensor({4}, at::kLong), at::kFloat);
  EXPECT_TRUE(at::equal(rope_tables(inv_freq, same, at::kFloat, {2, 2, 1}).cos, plain.cos));
  EXPECT_THROW(rope_tables(inv_freq, positions, at::kFloat), Error);
}

}  // namespace
}  // namespace verlpp::model
