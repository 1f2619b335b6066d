// The image pipeline against Pillow and transformers' Qwen2VL image processor on odd images
// (tests/fixtures/vision, made by tools/make_vl_fixtures.py on the GPU machine; see its
// docstring). Decoding: PNG exact, JPEG within one u8 step (libjpeg-turbo builds may round the
// inverse DCT differently). qwen-vl-utils' fetch_image (Pillow's bicubic): exact. The processor's
// resize (transformers' torchvision backend: PyTorch's uint8 antialiased bicubic, Pillow's
// algorithm with int16 weights): exact.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verlpp/data/image_decode.h"
#include "verlpp/data/image_processor.h"
#include "verlpp/model/safetensors.h"

namespace verlpp::data {
namespace {

const std::string kDir = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/vision";

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

RgbImage to_image(const at::Tensor& hwc) {
  const at::Tensor t = hwc.contiguous();
  RgbImage image{static_cast<int>(t.size(1)), static_cast<int>(t.size(0)), {}};
  image.pixels.assign(t.data_ptr<std::uint8_t>(), t.data_ptr<std::uint8_t>() + t.numel());
  return image;
}

at::Tensor to_tensor(const RgbImage& image) {
  return at::from_blob(const_cast<std::uint8_t*>(image.pixels.data()),
                       {image.height, image.width, 3}, at::kByte)
      .clone();
}

// max |a - b| over two u8 images of equal size (255 + 1 when the sizes differ).
int max_difference(const RgbImage& a, const at::Tensor& b) {
  const at::Tensor ta = to_tensor(a);
  if (ta.sizes() != b.sizes()) return 256;
  return (ta.to(at::kInt) - b.to(at::kInt)).abs().max().item<int>();
}

class ImageFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!image_decoding_supported()) GTEST_SKIP() << "built without libpng/libjpeg";
    std::ifstream in(kDir + "/processor.json");
    ASSERT_TRUE(in) << kDir << "/processor.json";
    meta_ = nlohmann::json::parse(in);
  }
  nlohmann::json meta_;
  model::SafetensorsFile tensors_{kDir + "/processor.safetensors"};
};

TEST_F(ImageFixture, DecodeMatchesPillowAndToRgb) {
  for (const auto& entry : meta_["images"]) {
    const std::string name = entry["name"], file = entry["file"];
    const RgbImage decoded = decode_image(read_bytes(kDir + "/images/" + file), file);
    const int tolerance = file.ends_with(".jpg") ? 1 : 0;
    EXPECT_LE(max_difference(decoded, tensors_.tensor(name + ".decoded")), tolerance) << file;
  }
}

// Modes beyond 8-bit RGB(A), grey and palette (tests/fixtures/vision/modes, made by
// tools/make_image_mode_fixtures.py with Pillow 12.3): a CMYK JPEG (Pillow's inverted CMYK and
// cmyk2rgb), a 16-bit grey PNG (clipped to 255) and a 16-bit grey + alpha PNG (RGBA from the high
// bytes, composited onto white). PNGs exact, the JPEG within one u8 step as above.
TEST(ImageModes, DecodeMatchesPillowAndToRgb) {
  if (!image_decoding_supported()) GTEST_SKIP() << "built without libpng/libjpeg";
  const std::string dir = kDir + "/modes";
  model::SafetensorsFile decoded(dir + "/decoded.safetensors");
  for (const std::string name : {"cmyk_37x29", "grey16_37x29", "grey_alpha16_37x29"}) {
    const std::string file = name + (name.starts_with("cmyk") ? ".jpg" : ".png");
    const RgbImage image = decode_image(read_bytes(dir + "/" + file), file);
    const int tolerance = file.ends_with(".jpg") ? 1 : 0;
    EXPECT_LE(max_difference(image, decoded.tensor(name + ".decoded")), tolerance) << file;
  }
}

TEST_F(ImageFixture, FetchImageMatchesPillowBicubic) {
  for (const auto& entry : meta_["images"]) {
    const std::string name = entry["name"];
    const RgbImage fetched = fetch_image(to_image(tensors_.tensor(name + ".decoded")));
    EXPECT_EQ(max_difference(fetched, tensors_.tensor(name + ".fetched")), 0) << name;
  }
}

TEST_F(ImageFixture, ProcessorResizeAndGrid) {
  for (const auto& entry : meta_["images"]) {
    const std::string name = entry["name"];
    const ProcessedImage out = process_image(to_image(tensors_.tensor(name + ".fetched")));
    const at::Tensor grid = tensors_.tensor(name + ".grid");
    EXPECT_EQ(out.grid_thw[0], grid[0].item<int64_t>()) << name;
    EXPECT_EQ(out.grid_thw[1], grid[1].item<int64_t>()) << name;
    EXPECT_EQ(out.grid_thw[2], grid[2].item<int64_t>()) << name;
    EXPECT_EQ(max_difference(out.resized, tensors_.tensor(name + ".processed")), 0) << name;
  }
}

TEST_F(ImageFixture, PixelValuesOfTheTinyProcessor) {
  ImageProcessorConfig config;
  config.patch_size = 4;
  config.min_pixels = 64;
  config.max_pixels = 100000;
  std::vector<at::Tensor> rows;
  std::vector<std::int64_t> grids;
  for (const char* name : {"tiny_a", "tiny_b"}) {
    const RgbImage image = decode_image(read_bytes(kDir + "/images/" + name + ".png"), name);
    const ProcessedImage out = process_image(image, config);
    rows.push_back(out.pixel_values);
    grids.insert(grids.end(), out.grid_thw.begin(), out.grid_thw.end());
  }
  const at::Tensor expected = tensors_.tensor("tiny.pixel_values");
  const at::Tensor got = at::cat(rows);
  ASSERT_EQ(got.sizes(), expected.sizes());
  EXPECT_LE((got - expected).abs().max().item<float>(), 1e-6f);
  EXPECT_TRUE(at::equal(at::tensor(grids, at::kLong).view({2, 3}), tensors_.tensor("tiny.grid")));
}

}  // namespace
}  // namespace verlpp::data
