// The image side of verl's dataset rows: the image column, "<image>" placeholders into content
// lists (verl's _build_messages), pad-token expansion (the processor's replace_image_token), the
// pad count of an image against transformers' image_grid_thw (tests/fixtures/vision), and
// RLHFDataset with images end to end on the fixture images with a vision-language chat template.
#include "verlpp/data/row_images.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error_of.h"
#include "temp_dir.h"
#include "verlpp/core/error.h"
#include "verlpp/data/image_decode.h"
#include "verlpp/data/rl_dataset.h"

namespace verlpp::data {
namespace {

const std::string kSource = VERLPP_SOURCE_DIR;
const std::string kImages = kSource + "/tests/fixtures/vision/images/";
const RowOrigin kOrigin{"/data/geo3k/train.jsonl", "line 4"};

using verlpp::testing::error_of;

TEST(RowImages, PlaceholdersBecomeContentLists) {
  const Row messages = Row::parse(
      R"([{"role": "system", "content": "Be brief."},
          {"role": "user", "content": "<image>Find x.<image> and y"}])");
  const Row out = image_messages(messages, 2, kOrigin);
  // Every string content becomes a list, as verl's _build_messages converts each message.
  EXPECT_EQ(out[0]["content"], Row::parse(R"([{"type": "text", "text": "Be brief."}])"));
  EXPECT_EQ(out[1]["content"],
            Row::parse(R"([{"type": "image"}, {"type": "text", "text": "Find x."},
                                              {"type": "image"}, {"type": "text", "text": " and y"}])"));
  const std::string e = error_of([&] { image_messages(messages, 1, kOrigin); });
  EXPECT_EQ(e,
            "/data/geo3k/train.jsonl line 4: the row has 1 image but its messages hold 2 "
            "\"<image>\" placeholders; each image needs exactly one");
}

TEST(RowImages, TheImageColumn) {
  const Row row = Row::parse(
      R"({"images": [{"bytes": "PNG", "path": "a.png"}, {"bytes": null, "path": "b.png"}, "c.jpg"]})");
  const auto refs = image_refs(row, "images", kOrigin);
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].bytes, "PNG");
  EXPECT_EQ(refs[1].path, "b.png");
  EXPECT_TRUE(refs[1].bytes.empty());
  EXPECT_EQ(refs[2].path, "c.jpg");
  EXPECT_TRUE(image_refs(Row::parse(R"({"images": null})"), "images", kOrigin).empty());
  EXPECT_TRUE(image_refs(row, "", kOrigin).empty());
  EXPECT_EQ(error_of([] { image_refs(Row::parse(R"({"images": [7]})"), "images", kOrigin); }),
            "/data/geo3k/train.jsonl line 4: 'images' entry 0 must be {\"bytes\": <image bytes>} "
            "or {\"path\": str} or a path string, got number");
  EXPECT_NE(error_of([] {
              image_refs(Row::parse(R"({"images": "a.png"})"), "images", kOrigin);
            }).find("must be a list of images"),
            std::string::npos);
}

// What a careless row holds: a number where the path goes, URLs (nothing is fetched), file://.
TEST(RowImages, OddReferencesAreNamed) {
  EXPECT_NE(error_of([] {
              image_refs(Row::parse(R"({"images": [{"path": 7}]})"), "images", kOrigin);
            }).find("got an object whose 'path' is a number"),
            std::string::npos);
  for (const std::string url : {"http://x/a.png", "https://x/a.png", "data:image/png;base64,AAA"}) {
    const std::string e = error_of([&] { read_image_bytes({"", url}, kOrigin, 0); });
    EXPECT_NE(e.find("line 4: image 0: '" + url + "' is a URL"), std::string::npos) << e;
  }
  EXPECT_EQ(read_image_bytes({"", "file://" + kImages + "tiny_a.png"}, kOrigin, 0),
            read_image_bytes({"", kImages + "tiny_a.png"}, kOrigin, 0));
}

TEST(RowImages, PadTokensExpandPerImage) {
  EXPECT_EQ(expand_image_pads({1, 9, 2, 9, 3}, 9, {2, 3}, "row"),
            (std::vector<std::int32_t>{1, 9, 9, 2, 9, 9, 9, 3}));
  EXPECT_EQ(error_of([] {
              expand_image_pads({1, 9, 2}, 9, {2, 3}, "t.jsonl line 2");
            }),
            "t.jsonl line 2: the templated prompt holds 1 image pad token (id 9) for 2 images; "
            "the chat template must render each image item as one pad token");
}

// transformers' grids (tests/fixtures/vision/processor.json: fetch_image, then Qwen3.5's
// processor): the pad count from the size alone is t h w / 4 of each.
TEST(RowImages, TokenCountsMatchTransformersGrids) {
  std::ifstream in(kSource + "/tests/fixtures/vision/processor.json");
  const auto fixture = nlohmann::json::parse(in);
  int checked = 0;
  for (const auto& image : fixture["images"]) {
    const std::vector<std::int64_t> grid = image["grid"];
    const std::vector<int> size = image["size"];
    if (grid.size() != 3 || image["name"].get<std::string>().starts_with("tiny")) continue;
    EXPECT_EQ(image_token_count(size[0], size[1], ImageSettings{}), grid[0] * grid[1] * grid[2] / 4)
        << image["name"];
    ++checked;
  }
  EXPECT_GE(checked, 7);
}

class RLHFDatasetImages : public ::testing::Test {
 protected:
  // The Qwen3 tokenizer (it has <|image_pad|>) with a vision-language chat template.
  void SetUp() override {
    namespace fs = std::filesystem;
    const fs::path from = kSource + "/tests/fixtures/tokenizers/qwen3";
    fs::copy_file(from / "tokenizer.json", dir_.path("tokenizer.json"));
    std::ifstream config_in(from / "tokenizer_config.json");
    auto config = nlohmann::json::parse(config_in);
    std::ifstream templ(kSource + "/tests/fixtures/tokenizers/templates/qwen3_5-vl-test.jinja");
    config["chat_template"] = std::string(std::istreambuf_iterator<char>(templ), {});
    dir_.file("tokenizer_config.json", config.dump());
    tokenizer_ =
        std::make_unique<tokenizer::Tokenizer>(tokenizer::Tokenizer::from_directory(dir_.path()));
  }
  RLHFDatasetConfig config(const std::string& rows, std::int64_t max_prompt_length = 400) {
    RLHFDatasetConfig c;
    c.files = {dir_.file("rows.jsonl", rows)};
    c.max_prompt_length = max_prompt_length;
    return c;
  }
  testing::TempDir dir_;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;
};

TEST_F(RLHFDatasetImages, ImagesBecomePadRunsAndPerRowTensors) {
  if (!image_decoding_supported()) GTEST_SKIP() << "built without image decoding";
  const std::string rows =
      R"({"prompt": [{"role": "user", "content": "<image>Find x."}], "images": [{"path": ")" +
      kImages + R"(rgb_37x23.png"}], "data_source": "hiyouga/geometry3k"})" + "\n" +
      R"({"prompt": [{"role": "user", "content": "No picture."}], "data_source": "hiyouga/geometry3k"})" +
      "\n";
  const RLHFDataset dataset(config(rows), *tokenizer_);
  ASSERT_TRUE(dataset.has_images());
  EXPECT_EQ(dataset.prompt_text(0),
            "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>Find "
            "x.<|im_end|>\n<|im_start|>assistant\n<think>\n");
  const Batch batch = dataset.collate({0, 1});
  const std::int32_t pad = *tokenizer_->token_to_id("<|image_pad|>");
  const at::Tensor ids = batch.tensor("input_ids");
  // transformers' grid for this image is (1, 14, 20): 70 pad tokens.
  EXPECT_EQ(ids[0].eq(pad).sum().item<std::int64_t>(), 70);
  EXPECT_EQ(ids[1].eq(pad).sum().item<std::int64_t>(), 0);
  const auto& grids = batch.row_tensors("image_grid_thw");
  EXPECT_TRUE(at::equal(grids[0], at::tensor({1, 14, 20}, at::kLong).view({1, 3})));
  EXPECT_EQ(grids[1].size(0), 0);
  EXPECT_EQ(batch.row_tensors("pixel_values")[0].sizes(), (std::vector<std::int64_t>{280, 1536}));
  EXPECT_FALSE(batch.has_non_tensor("images"));
}

// A text row of an image dataset whose text holds the pad token would make the model look for
// features that are not there: refused, naming the row.
TEST_F(RLHFDatasetImages, PadTokenInTextIsRefused) {
  if (!image_decoding_supported()) GTEST_SKIP() << "built without image decoding";
  const std::string rows =
      R"({"prompt": [{"role": "user", "content": "<image>Find x."}], "images": [")" + kImages +
      R"(tiny_a.png"]})" + "\n" +
      R"({"prompt": [{"role": "user", "content": "What <|image_pad|> is 1+2?"}]})" + "\n";
  const RLHFDataset dataset(config(rows), *tokenizer_);
  EXPECT_NE(error_of([&] {
              dataset.collate({0, 1});
            }).find("rows.jsonl line 2: the prompt's text holds the image pad token"),
            std::string::npos);
}

TEST_F(RLHFDatasetImages, FilterCountsImageTokens) {
  if (!image_decoding_supported()) GTEST_SKIP() << "built without image decoding";
  // Text alone is ~20 tokens; with the 600 x 330 image's 190 pads it is above 100.
  const std::string rows =
      R"({"prompt": [{"role": "user", "content": "<image>Big."}], "images": [")" + kImages +
      R"(rgb_600x330.png"]})" + "\n" +
      R"({"prompt": [{"role": "user", "content": "<image>Small."}], "images": [")" + kImages +
      R"(tiny_a.png"]})" + "\n";
  RLHFDatasetConfig c = config(rows, 100);
  c.filter_overlong_prompts = true;
  const RLHFDataset dataset(c, *tokenizer_);
  EXPECT_EQ(dataset.size(), 1);
  EXPECT_EQ(dataset.filtered_out(), 1);
  c.filter_overlong_prompts = false;
  const std::string e = error_of([&] { RLHFDataset(c, *tokenizer_).collate({0}); });
  EXPECT_NE(e.find("line 1: the prompt with its images is"), std::string::npos) << e;
}

TEST_F(RLHFDatasetImages, BadImagesNameTheRow) {
  if (!image_decoding_supported()) GTEST_SKIP() << "built without image decoding";
  dir_.file("broken.png", "not an image");
  const std::string rows =
      R"({"prompt": [{"role": "user", "content": "<image>One."}], "images": ["broken.png"]})"
      "\n"
      R"({"prompt": [{"role": "user", "content": "<image>Two."}], "images": ["missing.png"]})"
      "\n";
  const RLHFDataset dataset(config(rows), *tokenizer_);
  EXPECT_NE(error_of([&] { dataset.collate({0}); }).find("rows.jsonl line 1 image 0: not a PNG"),
            std::string::npos);
  EXPECT_NE(error_of([&] { dataset.collate({1}); })
                .find("rows.jsonl line 2: image 0: " + dir_.path("missing.png") +
                      ": image file: no such file"),
            std::string::npos);
  // A folder (or device, pipe) is refused before reading: it would fail, never end or block.
  const std::string folder =
      R"({"prompt": [{"role": "user", "content": "<image>One."}], "images": ["."]})";
  const std::string e = error_of([&] { RLHFDataset(config(folder), *tokenizer_).collate({0}); });
  EXPECT_NE(e.find("rows.jsonl line 1: image 0: "), std::string::npos) << e;
  EXPECT_NE(e.find("/.: image file is a folder, not a file"), std::string::npos) << e;
  // An empty list still needs its placeholders to match (verl asserts it); null does not.
  const std::string empty =
      R"({"prompt": [{"role": "user", "content": "<image>One."}], "images": []})";
  EXPECT_NE(error_of([&] {
              RLHFDataset(config(empty), *tokenizer_);
            }).find("rows.jsonl line 1: the row has 0 images but its messages hold 1"),
            std::string::npos);
  const std::string null_images =
      R"({"prompt": [{"role": "user", "content": "<image>One."}], "images": null})";
  EXPECT_FALSE(RLHFDataset(config(null_images), *tokenizer_).has_images());
  const std::string counts =
      R"({"prompt": [{"role": "user", "content": "No placeholder."}], "images": ["broken.png"]})";
  EXPECT_NE(error_of([&] {
              RLHFDataset(config(counts), *tokenizer_);
            }).find("rows.jsonl line 1: the row has 1 image but its messages hold 0"),
            std::string::npos);
}

}  // namespace
}  // namespace verlpp::data
