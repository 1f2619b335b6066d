#include "verlpp/model/safetensors.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_parse.h"

namespace verlpp::model {

namespace {

const std::vector<std::pair<std::string, at::ScalarType>>& dtype_table() {
  static const std::vector<std::pair<std::string, at::ScalarType>> table = {
      {"F64", at::kDouble}, {"F32", at::kFloat}, {"F16", at::kHalf},  {"BF16", at::kBFloat16},
      {"I64", at::kLong},   {"I32", at::kInt},   {"I16", at::kShort}, {"I8", at::kChar},
      {"U8", at::kByte},    {"BOOL", at::kBool}};
  return table;
}

at::ScalarType parse_dtype(const std::string& name, const std::string& where) {
  for (const auto& [n, t] : dtype_table()) {
    if (n == name) return t;
  }
  throw Error(where + ": unsupported dtype '" + name + "' (expected F64, F32, F16, BF16, I64, " +
              "I32, I16, I8, U8 or BOOL)");
}

TensorInfo parse_entry(const nlohmann::json& entry, const std::string& where, uint64_t data_size) {
  if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
      !entry.contains("data_offsets")) {
    throw Error(where + ": expected an object with dtype, shape and data_offsets");
  }
  TensorInfo info;
  try {
    info.dtype = parse_dtype(entry.at("dtype").get<std::string>(), where);
    info.shape = entry.at("shape").get<std::vector<int64_t>>();
    const auto offsets = entry.at("data_offsets").get<std::vector<uint64_t>>();
    if (offsets.size() != 2) throw Error(where + ": data_offsets must have two entries");
    info.begin = offsets[0];
    info.end = offsets[1];
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": malformed entry (" + e.what() + ")");
  }
  const bool empty = std::find(info.shape.begin(), info.shape.end(), 0) != info.shape.end();
  uint64_t bytes = empty ? 0 : at::elementSize(info.dtype);
  for (int64_t d : info.shape) {
    if (d < 0) throw Error(where + ": negative dimension in shape");
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes)) {
      throw Error(fmt::format("{}: shape [{}] needs more than 2^64 bytes", where,
                              fmt::join(info.shape, ", ")));
    }
  }
  if (info.end < info.begin || info.end - info.begin != bytes) {
    throw Error(fmt::format("{}: data_offsets [{}, {}] hold {} bytes but the shape needs {}", where,
                            info.begin, info.end, info.end - info.begin, bytes));
  }
  if (info.end > data_size) {
    throw Error(fmt::format("{}: data ends at byte {} but the file's data section has {}", where,
                            info.end, data_size));
  }
  return info;
}

// Hugging Face's reader: the tensors, sorted by offsets, each start where the previous ends (no
// overlap, no gap) and the last ends where the data does.
void require_contiguous(const std::map<std::string, TensorInfo>& infos, const std::string& path,
                        uint64_t data_size) {
  std::vector<std::pair<const std::string*, const TensorInfo*>> order;
  for (const auto& [name, info] : infos) order.emplace_back(&name, &info);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::pair(a.second->begin, a.second->end) < std::pair(b.second->begin, b.second->end);
  });
  uint64_t expected = 0;
  for (const auto& [name, info] : order) {
    if (info->begin != expected) {
      throw Error(fmt::format(
          "{}: tensor '{}' starts at data byte {}, expected {} (tensors must follow each other "
          "without overlap or gap, as Hugging Face's safetensors reader requires)",
          path, *name, info->begin, expected));
    }
    expected = info->end;
  }
  if (expected != data_size) {
    throw Error(fmt::format("{}: the tensors end at data byte {} but the file holds {} data bytes",
                            path, expected, data_size));
  }
}

}  // namespace

struct SafetensorsFile::Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

namespace {

// Reads `size` bytes at `offset` into `into`; throws verlpp::Error naming `what` when the file ends
// first or the read fails.
void read_exactly(int fd, void* into, uint64_t size, uint64_t offset, const std::string& what) {
  auto* out = static_cast<char*>(into);
  uint64_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, out + done, size - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(fmt::format("{}: read failed ({})", what, std::strerror(errno)));
    if (got == 0) {
      throw Error(
          fmt::format("{}: the file has no byte {} of bytes [{}, {}) (shortened since it "
                      "was opened?)",
                      what, offset + done, offset, offset + size));
    }
    done += static_cast<uint64_t>(got);
  }
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path)
    : path_(path), file_(std::make_shared<Descriptor>()) {
  // Before open(2): opening a FIFO for reading waits for a writer (bt18: a shard that was a FIFO
  // hung the load).
  require_regular_file(path, "safetensors file");
  file_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file_->fd < 0) {
    throw Error(path + ": cannot open safetensors file (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (fstat(file_->fd, &st) != 0 || st.st_size < 8) {
    throw Error(path + ": not a safetensors file (shorter than its 8-byte header length)");
  }
  const auto file_size = static_cast<uint64_t>(st.st_size);
  uint8_t length[8];
  read_exactly(file_->fd, length, 8, 0, path);
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | length[i];
  if (header_size > file_size - 8) {
    throw Error(
        fmt::format("{}: header length {} exceeds the file size {}", path, header_size, file_size));
  }
  std::string text(header_size, '\0');
  read_exactly(file_->fd, text.data(), header_size, 8, path);
  nlohmann::json header;
  try {
    header = parse_json<nlohmann::json>(text.data(), text.data() + text.size());
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": header is not valid JSON (" + json_error_text(e.what()) + ")");
  }
  if (!header.is_object()) throw Error(path + ": header is not a JSON object");
  data_offset_ = 8 + header_size;
  const uint64_t data_size = file_size - data_offset_;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) throw Error(path + ": __metadata__ is not an object");
      for (const auto& [k, v] : entry.items()) {
        if (v.is_string()) metadata_[k] = v.get<std::string>();
      }
      continue;
    }
    infos_.emplace(name, parse_entry(entry, path + ": tensor '" + name + "'", data_size));
  }
  require_contiguous(infos_, path, data_size);
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  out.reserve(infos_.size());
  for (const auto& [name, info] : infos_) out.push_back(name);
  return out;
}

const TensorInfo& SafetensorsFile::info(const std::string& name) const {
  const auto it = infos_.find(name);
  if (it == infos_.end()) throw Error(path_ + ": no tensor named '" + name + "'");
  return it->second;
}

at::Tensor SafetensorsFile::read(const std::string& name, const TensorInfo& info,
                                 std::vector<int64_t> shape, uint64_t first_byte) const {
  at::Tensor out = at::empty(shape, at::TensorOptions().dtype(info.dtype).device(at::kCPU));
  read_exactly(file_->fd, out.data_ptr(), out.nbytes(), data_offset_ + info.begin + first_byte,
               path_ + ": tensor '" + name + "'");
  return out;
}

at::Tensor SafetensorsFile::tensor(const std::string& name) const {
  const TensorInfo& ti = info(name);
  return read(name, ti, ti.shape, 0);
}

at::Tensor SafetensorsFile::rows(const std::string& name, int64_t begin, int64_t count) const {
  const TensorInfo& ti = info(name);
  if (ti.shape.empty() || begin < 0 || count < 0 || begin > ti.shape[0] - count) {
    throw Error(fmt::format("{}: tensor '{}' of shape [{}] has no rows [{}, {})", path_, name,
                            fmt::join(ti.shape, ", "), begin, begin + count));
  }
  std::vector<int64_t> shape = ti.shape;
  shape[0] = count;
  const uint64_t row_bytes = ti.shape[0] == 0 ? 0 : (ti.end - ti.begin) / ti.shape[0];
  return read(name, ti, shape, static_cast<uint64_t>(begin) * row_bytes);
}

std::string safetensors_dtype_name(at::ScalarType dtype) {
  for (const auto& [n, t] : dtype_table()) {
    if (t == dtype) return n;
  }
  throw Error(std::string("safetensors has no dtype for ") + c10::toString(dtype));
}

void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                       std::map<std::string, std::string> metadata) {
  std::map<std::string, at::Tensor> sorted;
  for (const auto& [name, t] : tensors) {
    if (name == "__metadata__") throw Error(path + ": '__metadata__' is not a tensor name");
    if (!sorted.emplace(name, t.detach().to(at::kCPU).contiguous()).second) {
      throw Error(path + ": tensor '" + name + "' given twice");
    }
  }
  metadata.emplace("format", "pt");
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : sorted) {
    const uint64_t bytes = t.numel() * t.element_size();
    header[name] = {{"dtype", safetensors_dtype_name(t.scalar_type())},
                    {"shape", t.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  write_atomically(path, [&](const std::filesystem::path& temporary) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot open for writing");
    uint8_t length[8];
    for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(text.size() >> (8 * i));
    out.write(reinterpret_cast<const char*>(length), 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const auto& [name, t] : sorted) {
      out.write(static_cast<const char*>(t.data_ptr()),
                static_cast<std::streamsize>(t.numel() * t.element_size()));
    }
    out.close();
    if (!out) throw Error(path + ": write failed: " + std::strerror(errno));
  });
}

}  // namespace verlpp::model
