// The batch container: repeat-interleave, split, chunk, concat and selection, on hand-built rows.
#include "verlpp/data/batch.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

Batch three_rows() {
  Batch batch;
  batch.set_tensor("input_ids", at::tensor({1, 2, 3, 4, 5, 6}, at::kLong).view({3, 2}));
  batch.set_non_tensor("uid", {"a", "b", "c"});
  batch.meta_info["temperature"] = 1.0;
  return batch;
}

std::vector<std::int64_t> column(const Batch& batch, std::int64_t col) {
  const auto t = batch.tensor("input_ids").select(1, col).contiguous();
  return {t.data_ptr<std::int64_t>(), t.data_ptr<std::int64_t>() + t.numel()};
}

std::vector<nlohmann::json> uids(std::initializer_list<const char*> values) {
  return {values.begin(), values.end()};
}

TEST(Batch, RepeatInterleaveForRolloutN) {
  const Batch repeated = three_rows().repeat_interleave(2);
  EXPECT_EQ(repeated.size(), 6);
  EXPECT_EQ(column(repeated, 0), (std::vector<std::int64_t>{1, 1, 3, 3, 5, 5}));
  EXPECT_EQ(column(repeated, 1), (std::vector<std::int64_t>{2, 2, 4, 4, 6, 6}));
  EXPECT_EQ(repeated.non_tensor("uid"), uids({"a", "a", "b", "b", "c", "c"}));
  EXPECT_EQ(repeated.meta_info["temperature"], 1.0);
}

TEST(Batch, SplitIntoMiniBatchesAndConcatBack) {
  const Batch repeated = three_rows().repeat_interleave(2);
  const auto pieces = repeated.split(4);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(pieces[0].size(), 4);
  EXPECT_EQ(pieces[1].size(), 2);
  EXPECT_EQ(pieces[1].non_tensor("uid"), uids({"c", "c"}));
  EXPECT_EQ(column(pieces[1], 1), (std::vector<std::int64_t>{6, 6}));
  const Batch joined = Batch::concat(pieces);
  EXPECT_TRUE(at::equal(joined.tensor("input_ids"), repeated.tensor("input_ids")));
  EXPECT_EQ(joined.non_tensor("uid"), repeated.non_tensor("uid"));
}

TEST(Batch, ChunkNeedsEqualPieces) {
  const auto chunks = three_rows().repeat_interleave(2).chunk(3);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[2].non_tensor("uid"), uids({"c", "c"}));
  EXPECT_THROW(three_rows().chunk(2), Error);
}

TEST(Batch, SelectAndErrors) {
  const Batch batch = three_rows();
  EXPECT_EQ(batch.select({2, 0}).non_tensor("uid"), uids({"c", "a"}));
  EXPECT_THROW(batch.select({3}), Error);
  EXPECT_THROW(batch.repeat_interleave(0), Error);
  Batch wrong = three_rows();
  EXPECT_THROW(wrong.set_tensor("mask", at::ones({2, 2})), Error);
  EXPECT_THROW(wrong.set_non_tensor("data_source", {"x"}), Error);
  try {
    batch.tensor("responses");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "batch has no tensor 'responses'; it has: input_ids");
  }
  Batch other;
  other.set_non_tensor("uid", {"d"});
  EXPECT_THROW(Batch::concat({batch, other}), Error);
}

// Ragged rows (an image prompt's patches): each row's own tensor follows its row through every
// operation, the same tensor object (repeat_interleave shares it, so the n samples of a prompt
// share its pixels).
TEST(Batch, PerRowTensorsFollowTheirRows) {
  Batch batch = three_rows();
  std::vector<at::Tensor> pixels = {at::full({2, 4}, 1.0), at::zeros({0, 4}),
                                    at::full({5, 4}, 3.0)};
  batch.set_row_tensors("pixel_values", pixels);
  EXPECT_THROW(batch.set_row_tensors("image_grid_thw", {at::zeros({1, 3})}), Error);
  EXPECT_THROW(batch.set_row_tensors("image_grid_thw", {at::Tensor(), at::Tensor(), at::Tensor()}),
               Error);

  const Batch repeated = batch.repeat_interleave(2);
  const auto& rows = repeated.row_tensors("pixel_values");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_TRUE(rows[0].is_same(pixels[0]) && rows[1].is_same(pixels[0]));
  EXPECT_EQ(rows[3].size(0), 0);
  EXPECT_TRUE(rows[5].is_same(pixels[2]));

  const auto pieces = repeated.split(4);
  EXPECT_EQ(pieces[1].row_tensors("pixel_values").size(), 2u);
  EXPECT_TRUE(pieces[1].row_tensors("pixel_values")[0].is_same(pixels[2]));
  const Batch joined = Batch::concat(pieces);
  for (std::size_t r = 0; r < 6; ++r)
    EXPECT_TRUE(joined.row_tensors("pixel_values")[r].is_same(rows[r]));
  EXPECT_TRUE(batch.select({2, 0}).row_tensors("pixel_values")[1].is_same(pixels[0]));

  EXPECT_THROW(Batch::concat({batch, three_rows()}), Error);
  try {
    three_rows().row_tensors("pixel_values");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "batch has no per-row tensor 'pixel_values'; it has: (none)");
  }
}

}  // namespace
}  // namespace verlpp::data
