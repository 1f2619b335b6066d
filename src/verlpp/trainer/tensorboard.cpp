#include "verlpp/trainer/tensorboard.h"

#include <unistd.h>

#include <array>
#include <bit>
#include <chrono>
#include <cstring>

#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {

constexpr std::array<std::uint32_t, 256> make_crc32c_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? 0x82F63B78u : 0u);
    table[i] = crc;
  }
  return table;
}

constexpr auto kCrc32cTable = make_crc32c_table();

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

template <typename T>
void put_little_endian(std::string& out, T value) {
  static_assert(std::endian::native == std::endian::little, "big-endian hosts are not supported");
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void put_length_delimited(std::string& out, int field, std::string_view bytes) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | 2u);
  put_varint(out, bytes.size());
  out.append(bytes);
}

void put_event_header(std::string& out, double wall_time, std::int64_t step) {
  if (wall_time != 0.0) {
    put_varint(out, (1u << 3) | 1u);
    put_little_endian(out, wall_time);
  }
  if (step != 0) {
    put_varint(out, 2u << 3);
    put_varint(out, static_cast<std::uint64_t>(step));
  }
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

}  // namespace

std::uint32_t crc32c(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : bytes) crc = kCrc32cTable[(crc ^ byte) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::uint32_t masked_crc32c(std::string_view bytes) {
  const std::uint32_t crc = crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string encode_scalar_event(double wall_time, std::int64_t step, std::string_view tag,
                                float value) {
  std::string summary_value;
  if (!tag.empty()) put_length_delimited(summary_value, 1, tag);
  put_varint(summary_value, (2u << 3) | 5u);
  put_little_endian(summary_value, value);
  std::string summary;
  put_length_delimited(summary, 1, summary_value);
  std::string event;
  put_event_header(event, wall_time, step);
  put_length_delimited(event, 5, summary);
  return event;
}

std::string encode_file_version_event(double wall_time) {
  std::string event;
  put_event_header(event, wall_time, 0);
  put_length_delimited(event, 3, "brain.Event:2");
  return event;
}

std::string frame_record(std::string_view data) {
  std::string length;
  put_little_endian(length, static_cast<std::uint64_t>(data.size()));
  std::string frame = length;
  put_little_endian(frame, masked_crc32c(length));
  frame.append(data);
  put_little_endian(frame, masked_crc32c(data));
  return frame;
}

TensorBoardWriter::TensorBoardWriter(const std::filesystem::path& log_dir) {
  std::error_code error;
  std::filesystem::create_directories(log_dir, error);
  const double start = now_seconds();
  path_ = log_dir / ("events.out.tfevents." + std::to_string(static_cast<std::int64_t>(start)) +
                     "." + host_name() + "." + std::to_string(getpid()));
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr) {
    throw Error("tensorboard: cannot write " + path_.string() + ": " + std::strerror(errno));
  }
  write_record(encode_file_version_event(start));
}

TensorBoardWriter::~TensorBoardWriter() {
  if (file_ != nullptr) std::fclose(file_);
}

void TensorBoardWriter::add_scalar(std::string_view tag, double value, std::int64_t step) {
  write_record(encode_scalar_event(now_seconds(), step, tag, static_cast<float>(value)));
}

void TensorBoardWriter::write_record(std::string_view data) {
  const std::string frame = frame_record(data);
  if (std::fwrite(frame.data(), 1, frame.size(), file_) != frame.size() ||
      std::fflush(file_) != 0) {
    throw Error("tensorboard: cannot write " + path_.string() + ": " + std::strerror(errno));
  }
}

}  // namespace verlpp::trainer
