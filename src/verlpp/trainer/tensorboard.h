// TensorBoard event files written natively (no protobuf or TensorFlow dependency).
//
// Format (TensorFlow's record_writer.cc and event.proto / summary.proto, as read by TensorBoard):
//   file name   events.out.tfevents.<unix seconds>.<hostname>  (TensorBoard matches "tfevents")
//   record      uint64 length (little endian) | uint32 masked_crc32c(length bytes) |
//               data | uint32 masked_crc32c(data)
//   masked crc  ((crc >> 15) | (crc << 17)) + 0xa282ead8, crc = CRC-32C (Castagnoli)
//   first event {wall_time, file_version: "brain.Event:2"}
//   scalars     Event{wall_time=1 (double), step=2 (int64), summary=5 {value=1 {tag=1,
//   simple_value=2
//               (float)}}}, proto3 encoding (zero wall_time/step omitted, as protobuf does).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace verlpp::trainer {

// CRC-32C (Castagnoli polynomial 0x82F63B78, reflected) of `bytes`.
std::uint32_t crc32c(std::string_view bytes);

// TFRecord's masked CRC of `bytes`.
std::uint32_t masked_crc32c(std::string_view bytes);

// Serialized Event proto holding one scalar summary value.
std::string encode_scalar_event(double wall_time, std::int64_t step, std::string_view tag,
                                float value);

// Serialized Event proto holding file_version "brain.Event:2".
std::string encode_file_version_event(double wall_time);

// One TFRecord frame around `data`.
std::string frame_record(std::string_view data);

// Appends scalar events to a new event file in `log_dir` (created if absent). Throws verlpp::Error
// naming the path when the directory or file cannot be written. Each add_scalar is flushed, so a
// killed run keeps what it logged.
class TensorBoardWriter {
 public:
  explicit TensorBoardWriter(const std::filesystem::path& log_dir);
  ~TensorBoardWriter();
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  void add_scalar(std::string_view tag, double value, std::int64_t step);
  const std::filesystem::path& path() const { return path_; }

 private:
  void write_record(std::string_view data);

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

}  // namespace verlpp::trainer
