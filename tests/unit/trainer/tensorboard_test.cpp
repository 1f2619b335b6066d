#include "verlpp/trainer/tensorboard.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace verlpp::trainer {
namespace {

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

TEST(Crc32c, CheckValueOfTheCastagnoliPolynomial) {
  // CRC-32C check value (RFC 3720 appendix B.4 / the CRC catalogue): "123456789" -> 0xE3069283.
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(""), 0u);
  // RFC 3720 B.4: 32 bytes of zeros -> 0x8A9136AA.
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);
}

TEST(TensorBoardEvent, HandEncodedScalarEvent) {
  // Event{step=300 (field 2 varint: 0x10 0xAC 0x02), summary (field 5: 0x2A 0x0A) {value (0x0A
  // 0x08) {tag "a" (0x0A 0x01 'a'), simple_value 1.0f (0x15 00 00 80 3F)}}}; wall_time 0 is
  // omitted.
  EXPECT_EQ(hex(encode_scalar_event(0.0, 300, "a", 1.0f)), "10ac022a0a0a080a0161150000803f");
}

TEST(TensorBoardEvent, MatchesTensorBoardsOwnSerializationByteForByte) {
  std::ifstream in(std::string(VERLPP_SOURCE_DIR) +
                   "/tests/fixtures/trainer/tensorboard_records.json");
  ASSERT_TRUE(in) << "fixture missing";
  const auto fixture = nlohmann::json::parse(in);
  ASSERT_EQ(fixture["records"].size(), 5u);
  for (const auto& record : fixture["records"]) {
    const double wall_time = record["wall_time"];
    const std::int64_t step = record["step"];
    const std::string event =
        record["value"].is_null()
            ? encode_file_version_event(wall_time)
            : encode_scalar_event(wall_time, step, record["tag"].get<std::string>(),
                                  record["value"].get<float>());
    EXPECT_EQ(hex(event), record["event_hex"].get<std::string>()) << record.dump();
    EXPECT_EQ(hex(frame_record(event)), record["record_hex"].get<std::string>()) << record.dump();
  }
}

TEST(TensorBoardWriter, WritesFileVersionThenOneFramePerScalar) {
  const auto dir = std::filesystem::temp_directory_path() / "verlpp_tb_test";
  std::filesystem::remove_all(dir);
  std::filesystem::path path;
  {
    TensorBoardWriter writer(dir / "run");
    writer.add_scalar("x", 2.0, 1);
    path = writer.path();
  }
  EXPECT_NE(path.filename().string().find("events.out.tfevents."), std::string::npos);
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  // Two frames: each is 8 + 4 + payload + 4 bytes; the second payload is a scalar event of step 1.
  ASSERT_GT(data.size(), 16u);
  std::uint64_t first_length = 0;
  std::memcpy(&first_length, data.data(), 8);
  const std::size_t second = 16 + first_length;
  std::uint64_t second_length = 0;
  std::memcpy(&second_length, data.data() + second, 8);
  EXPECT_EQ(data.size(), second + 16 + second_length);
  EXPECT_NE(data.find("brain.Event:2"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(TensorBoardWriter, UnwritableDirectoryIsAClearError) {
  try {
    TensorBoardWriter writer("/proc/verlpp_no_such_dir");
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/proc/verlpp_no_such_dir"), std::string::npos);
  }
}

}  // namespace
}  // namespace verlpp::trainer
