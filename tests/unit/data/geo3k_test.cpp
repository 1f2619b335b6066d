// `verlpp data geo3k`: the public dataset's rows to verl's schema (geo3k.py's prompt, ground truth
// and extra_info; images written as files) and the cairo stand-in, whose count questions are
// checked against the pictures themselves (connected non-white regions of the decoded image).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "temp_dir.h"
#include "verlpp/core/error.h"
#include "verlpp/data/geo3k_preprocess.h"
#include "verlpp/data/geo3k_standin.h"
#include "verlpp/data/image_decode.h"
#include "verlpp/data/parquet_io.h"
#include "verlpp/data/row_images.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

namespace fs = std::filesystem;
const std::string kImages = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/vision/images/";

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(Geo3kPreprocess, RowsAsVerlWritesThem) {
  testing::TempDir dir;
  fs::create_directories(dir.path("raw/data"));
  const std::string row =
      R"({"problem": "<image>Find x.", "answer": "12", "id": "7", "images": [{"bytes": null, "path": ")" +
      kImages + R"(rgb_37x23.png"}]})";
  dir.file("raw/data/train.jsonl", row + "\n" + row + "\n");
  dir.file("raw/data/test.jsonl", row + "\n");
  const auto files = preprocess_geo3k(dir.path("raw"), dir.path("out"), false);
  ASSERT_EQ(files.size(), 2u);
  const RowFile out = read_rows(dir.path("out/train.jsonl"));
  ASSERT_EQ(out.rows.size(), 2u);
  const Row want = Row::parse(R"({
    "data_source": "hiyouga/geometry3k",
    "prompt": [{"role": "user", "content": "<image>Find x. You FIRST think about the reasoning process as an internal monologue and then provide the final answer. The reasoning process MUST BE enclosed within <think> </think> tags. The final answer MUST BE put in \\boxed{}."}],
    "images": [{"path": "images/train_1_0.png"}],
    "ability": "math",
    "reward_model": {"style": "rule", "ground_truth": "12"},
    "extra_info": {"split": "train", "index": 1, "answer": "12", "question": "<image>Find x."}})");
  EXPECT_EQ(out.rows[1], want);
  EXPECT_EQ(bytes_of(dir.path("out/images/train_1_0.png")), bytes_of(kImages + "rgb_37x23.png"));
  const std::string missing = R"({"problem": "p", "images": []})";
  fs::create_directories(dir.path("bad"));
  dir.file("bad/train.jsonl", missing + "\n");
  dir.file("bad/test.jsonl", missing + "\n");
  try {
    preprocess_geo3k(dir.path("bad"), dir.path("out2"), false);
    FAIL() << "a row without an answer was converted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("train.jsonl line 1: expected the 'answer' column"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(preprocess_geo3k(dir.path("nowhere"), dir.path("out3"), false), Error);
}

// A missing test split is found before anything is written; bytes that are neither PNG nor JPEG
// are an error naming the row instead of an image file nothing can read.
TEST(Geo3kPreprocess, BadInputLeavesNothingWritten) {
  testing::TempDir dir;
  const std::string row =
      R"({"problem": "p", "answer": "1", "images": [{"bytes": null, "path": ")" + kImages +
      R"(rgb_37x23.png"}]})";
  fs::create_directories(dir.path("only_train"));
  dir.file("only_train/train.jsonl", row + "\n");
  try {
    preprocess_geo3k(dir.path("only_train"), dir.path("out"), false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no test split"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.path("out")));
  fs::create_directories(dir.path("text"));
  dir.file("text/not_an_image.png", "hello, not a picture");
  const std::string text_row =
      R"({"problem": "p", "answer": "1", "images": [{"bytes": null, "path": ")" +
      dir.path("text/not_an_image.png") + R"("}]})";
  dir.file("text/train.jsonl", text_row + "\n");
  dir.file("text/test.jsonl", text_row + "\n");
  try {
    preprocess_geo3k(dir.path("text"), dir.path("out2"), false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("train.jsonl line 1: image 0 is neither PNG nor JPEG"),
              std::string::npos)
        << e.what();
  }
}

// Connected regions of non-white pixels (4-neighbour flood fill).
int regions(const RgbImage& image) {
  std::vector<char> seen(static_cast<std::size_t>(image.width) * image.height, 0);
  const auto ink = [&](int y, int x) {
    return image.at(y, x, 0) < 200 || image.at(y, x, 1) < 200 || image.at(y, x, 2) < 200;
  };
  int count = 0;
  for (int y0 = 0; y0 < image.height; ++y0) {
    for (int x0 = 0; x0 < image.width; ++x0) {
      if (seen[static_cast<std::size_t>(y0) * image.width + x0] || !ink(y0, x0)) continue;
      ++count;
      std::vector<std::pair<int, int>> stack = {{y0, x0}};
      while (!stack.empty()) {
        const auto [y, x] = stack.back();
        stack.pop_back();
        if (y < 0 || x < 0 || y >= image.height || x >= image.width) continue;
        auto& s = seen[static_cast<std::size_t>(y) * image.width + x];
        if (s || !ink(y, x)) continue;
        s = 1;
        stack.insert(stack.end(), {{y + 1, x}, {y - 1, x}, {y, x + 1}, {y, x - 1}});
      }
    }
  }
  return count;
}

// The hub's layout: data/{train,test}-00000-of-00001.parquet with the images' bytes inside
// (tools/make_parquet_types_fixture.py, pyarrow).
TEST(Geo3kPreprocess, HubParquetShards) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  testing::TempDir dir;
  const std::string hub = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/data/geo3k_hf";
  preprocess_geo3k(hub, dir.path("out"), false);
  const RowFile train = read_rows(dir.path("out/train.jsonl"));
  ASSERT_EQ(train.rows.size(), 2u);
  EXPECT_EQ(train.rows[1]["reward_model"]["ground_truth"], "\\frac{3}{2}");
  EXPECT_EQ(train.rows[1]["images"], Row::parse(R"([{"path": "images/train_1_0.png"}])"));
  EXPECT_EQ(bytes_of(dir.path("out/images/train_0_0.png")), bytes_of(kImages + "tiny_a.png"));
  EXPECT_EQ(bytes_of(dir.path("out/images/train_1_0.png")), bytes_of(kImages + "tiny_b.png"));
  EXPECT_EQ(read_rows(dir.path("out/test.jsonl")).rows[0]["extra_info"]["question"],
            "<image>Find y.");
}

TEST(Geo3kStandin, CountAnswersAreWhatIsDrawn) {
  if (!geo3k_standin_supported() || !image_decoding_supported()) {
    GTEST_SKIP() << "built without cairo or image decoding";
  }
  testing::TempDir dir;
  Geo3kStandinOptions options;
  options.train_rows = 12;
  options.test_rows = 3;
  options.seed = 5;
  const auto files = write_geo3k_standin(dir.path("geo"), options);
  ASSERT_EQ(files.size(), 2u);
  const RowFile rows = read_rows(dir.path("geo/train.jsonl"));
  ASSERT_EQ(rows.rows.size(), 12u);
  int counted = 0;
  for (std::size_t i = 0; i < rows.rows.size(); ++i) {
    const Row& r = rows.rows[i];
    EXPECT_EQ(r["data_source"], "hiyouga/geometry3k");
    EXPECT_EQ(r["extra_info"]["kind"], options.kinds[i % 3]);
    const auto refs = image_refs(r, "images", rows.origins[i]);
    ASSERT_EQ(refs.size(), 1u);
    image_messages(r["prompt"], 1, rows.origins[i]);  // one placeholder per image
    const RgbImage image = load_image(refs[0], rows.origins[i], 0);
    if (r["extra_info"]["kind"] != "count") continue;
    EXPECT_EQ(std::to_string(regions(image)), r["reward_model"]["ground_truth"].get<std::string>())
        << "row " << i;
    ++counted;
  }
  EXPECT_EQ(counted, 4);
  // The same seed draws the same pictures.
  write_geo3k_standin(dir.path("again"), options);
  EXPECT_EQ(bytes_of(dir.path("geo/images/train_3.png")),
            bytes_of(dir.path("again/images/train_3.png")));
  options.kinds = {"count", "volume"};
  EXPECT_THROW(write_geo3k_standin(dir.path("bad"), options), Error);
}

}  // namespace
}  // namespace verlpp::data
