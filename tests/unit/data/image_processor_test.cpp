// Image pipeline: smart_resize on multimodal.md §3.3's worked examples and hand-worked bounds, the
// pixel_values layout of §3.3 written out index by index, resize invariants, decode errors.
#include "verlpp/data/image_processor.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/data/image_decode.h"
#include "verlpp/data/image_resize.h"

namespace verlpp::data {
namespace {

const ResizeBounds kProcessorBounds{32, 65536, 16777216, /*clamp_small_sides=*/false};

TEST(SmartResize, WorkedExamples) {
  // 400 x 300 (W x H): round(9.375) = 9, round(12.5) = 12 (half to even) -> 288 x 384.
  EXPECT_EQ(smart_resize(300, 400, kProcessorBounds), std::make_pair(288, 384));
  // 150 x 100: qwen-vl-utils gives 96 x 160 (15,360 px >= 4,096); the processor then upscales
  // (15,360 < 65,536): beta = sqrt(65536 / 15360), ceil(6.196) = 7, ceil(10.33) = 11.
  EXPECT_EQ(smart_resize(100, 150, fetch_image_bounds()), std::make_pair(96, 160));
  EXPECT_EQ(smart_resize(96, 160, kProcessorBounds), std::make_pair(224, 352));
}

TEST(SmartResize, SmallSidesClampOrRefuse) {
  // 50 x 10: round(0.3125) = 0 -> clamped to 32, round(1.5625) = 2 -> 64; 2,048 < 4,096 pixels:
  // beta = sqrt(4096 / 500) = 2.862, ceil(0.894) = 1, ceil(4.47) = 5 -> 32 x 160.
  EXPECT_EQ(smart_resize(10, 50, fetch_image_bounds()), std::make_pair(32, 160));
  EXPECT_THROW(smart_resize(10, 50, kProcessorBounds), Error);  // transformers refuses sides < 32
  EXPECT_THROW(smart_resize(1, 201, fetch_image_bounds()), Error);  // aspect ratio above 200
  EXPECT_THROW(smart_resize(0, 10, fetch_image_bounds()), Error);
}

TEST(SmartResize, LargeImagesShrinkBelowMaxPixels) {
  // 4,000 x 3,000 with max 1,048,576: beta = sqrt(12e6 / 1048576) = 3.383, floor(27.7) = 27,
  // floor(36.95) = 36 -> 864 x 1,152 (995,328 px).
  const ResizeBounds bounds{32, 4096, 1048576, true};
  EXPECT_EQ(smart_resize(3000, 4000, bounds), std::make_pair(864, 1152));
}

RgbImage numbered_image(int width, int height) {
  RgbImage image{width, height, {}};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c)
        image.pixels.push_back(static_cast<std::uint8_t>(y * 40 + x * 9 + c));
    }
  }
  return image;
}

TEST(ProcessImage, PixelValuesLayout) {
  // Patch 2, merge 2, temporal 2 on a 4 x 8 (W x H) image that needs no resize: grid (1, 4, 2),
  // 8 rows of 3 * 2 * 2 * 2 = 24. Row (block_row br, m_r, m_c) holds patch (2 br + m_r, m_c);
  // column ch * 8 + t * 4 + i * 2 + j holds pixel (2 patch_row + i, 2 patch_col + j), channel ch.
  ImageProcessorConfig config;
  config.patch_size = 2;
  config.min_pixels = 16;
  const RgbImage image = numbered_image(4, 8);
  const ProcessedImage out = process_image(image, config);
  EXPECT_EQ(out.grid_thw, (std::array<std::int64_t, 3>{1, 4, 2}));
  EXPECT_EQ(out.tokens(2), 2);
  ASSERT_EQ(out.pixel_values.sizes(), (at::IntArrayRef{8, 24}));
  const auto pv = out.pixel_values.accessor<float, 2>();
  int row = 0;
  for (int br = 0; br < 2; ++br) {
    for (int mr = 0; mr < 2; ++mr) {
      for (int mc = 0; mc < 2; ++mc, ++row) {
        const int pr = 2 * br + mr, pc = mc;
        for (int ch = 0; ch < 3; ++ch) {
          for (int t = 0; t < 2; ++t) {
            for (int i = 0; i < 2; ++i) {
              for (int j = 0; j < 2; ++j) {
                const float u = image.at(2 * pr + i, 2 * pc + j, ch);
                EXPECT_EQ(pv[row][ch * 8 + t * 4 + i * 2 + j], (u - 127.5f) / 127.5f)
                    << "row " << row << " ch " << ch << " t " << t << " i " << i << " j " << j;
              }
            }
          }
        }
      }
    }
  }
}

TEST(ResizeBicubic, ConstantImagesStayConstantAndSameSizeIsACopy) {
  RgbImage flat{7, 5, std::vector<std::uint8_t>(7 * 5 * 3, 100)};
  for (auto [w, h] : {std::pair{13, 9}, std::pair{3, 2}, std::pair{7, 11}}) {
    const RgbImage out = resize_bicubic(flat, w, h);
    ASSERT_EQ(out.pixels.size(), static_cast<std::size_t>(w * h * 3));
    for (auto v : out.pixels) EXPECT_EQ(v, 100);
  }
  const RgbImage image = numbered_image(5, 4);
  EXPECT_EQ(resize_bicubic(image, 5, 4).pixels, image.pixels);
  EXPECT_THROW(resize_bicubic(image, 0, 4), Error);
}

TEST(DecodeImage, NotAnImageNamesWhere) {
  const std::vector<std::uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
  try {
    decode_image(text, "train.parquet row 3");
    FAIL() << "decoded text";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("train.parquet row 3"), std::string::npos) << e.what();
  }
  // A PNG signature followed by garbage: libpng's error, not a crash.
  std::vector<std::uint8_t> broken = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0};
  EXPECT_THROW(decode_image(broken, "x.png"), Error);
  std::vector<std::uint8_t> jpeg = {0xFF, 0xD8, 0xFF, 0xE0, 0, 16};
  EXPECT_THROW(decode_image(jpeg, "x.jpg"), Error);
}

// A JPEG cut in half: libjpeg only warns (and fills grey); Pillow refuses a truncated image, and
// so does verlpp.
TEST(DecodeImage, TruncatedJpegIsAnError) {
  if (!image_decoding_supported()) GTEST_SKIP() << "built without image decoding";
  std::ifstream in(
      std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/vision/images/photo_300x47.jpg",
      std::ios::binary);
  std::vector<std::uint8_t> jpeg((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(jpeg.size(), 100u);
  EXPECT_NO_THROW(decode_image(jpeg, "whole.jpg"));
  jpeg.resize(jpeg.size() / 2);
  try {
    decode_image(jpeg, "half.jpg");
    FAIL() << "a truncated JPEG was decoded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("half.jpg: cannot decode the JPEG image: Premature end"),
              std::string::npos)
        << e.what();
  }
}

// CRC-32 (ISO 3309, as PNG chunks carry it), bit by bit.
std::uint32_t crc32(const std::vector<std::uint8_t>& bytes, std::size_t begin) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = begin; i < bytes.size(); ++i) {
    crc ^= bytes[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put_be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// A PNG whose header claims 20,000 x 20,000 RGB pixels (400 M, over Pillow's 179 M limit) and
// holds no pixel data: refused from the header, before 1.2 GB is allocated.
TEST(DecodeImage, DecompressionBombIsRefusedFromTheHeader) {
  if (!image_decoding_supported()) GTEST_SKIP() << "built without image decoding";
  std::vector<std::uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  put_be32(png, 13);
  const std::size_t chunk = png.size();
  for (const char c : {'I', 'H', 'D', 'R'}) png.push_back(static_cast<std::uint8_t>(c));
  put_be32(png, 20000);
  put_be32(png, 20000);
  for (const std::uint8_t v : {8, 2, 0, 0, 0}) png.push_back(v);
  put_be32(png, crc32(png, chunk));
  put_be32(png, 0);  // an empty IDAT: png_read_info stops at its header
  const std::size_t idat = png.size();
  for (const char c : {'I', 'D', 'A', 'T'}) png.push_back(static_cast<std::uint8_t>(c));
  put_be32(png, crc32(png, idat));
  try {
    decode_image(png, "geo3k.jsonl line 7 image 0");
    FAIL() << "decoded a 400 M pixel header";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("geo3k.jsonl line 7 image 0"), std::string::npos) << message;
    EXPECT_NE(message.find("20000 x 20000 = 400000000 pixels"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace verlpp::data
