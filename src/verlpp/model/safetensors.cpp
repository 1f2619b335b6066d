#include "verlpp/model/safetensors.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/mman.h>
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

struct SafetensorsFile::Mapping {
  void* address = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (address != nullptr && address != MAP_FAILED) munmap(address, size);
  }
};

SafetensorsFile::SafetensorsFile(const std::string& path)
    : path_(path), mapping_(std::make_shared<Mapping>()) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw Error(path + ": cannot open safetensors file (" + std::strerror(errno) + ")");
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_size < 8) {
    ::close(fd);
    throw Error(path + ": not a safetensors file (shorter than its 8-byte header length)");
  }
  mapping_->size = static_cast<size_t>(st.st_size);
  mapping_->address =
      mmap(nullptr, mapping_->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, /*offset=*/0);
  ::close(fd);
  if (mapping_->address == MAP_FAILED) {
    throw Error(path + ": cannot map the file (" + std::strerror(errno) + ")");
  }
  const auto* bytes = static_cast<const uint8_t*>(mapping_->address);
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = (header_size << 8) | bytes[i];
  if (header_size > mapping_->size - 8) {
    throw Error(fmt::format("{}: header length {} exceeds the file size {}", path, header_size,
                            mapping_->size));
  }
  nlohmann::json header;
  try {
    header = parse_json<nlohmann::json>(bytes + 8, bytes + 8 + header_size);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": header is not valid JSON (" + json_error_text(e.what()) + ")");
  }
  if (!header.is_object()) throw Error(path + ": header is not a JSON object");
  data_ = bytes + 8 + header_size;
  const uint64_t data_size = mapping_->size - 8 - header_size;
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

at::Tensor SafetensorsFile::tensor(const std::string& name) const {
  const TensorInfo& ti = info(name);
  auto* ptr = const_cast<uint8_t*>(data_ + ti.begin);
  const auto options = at::TensorOptions().dtype(ti.dtype).device(at::kCPU);
  if (reinterpret_cast<uintptr_t>(ptr) % at::elementSize(ti.dtype) != 0) {
    at::Tensor out = at::empty(ti.shape, options);
    std::memcpy(out.data_ptr(), ptr, ti.end - ti.begin);
    return out;
  }
  std::shared_ptr<Mapping> keep = mapping_;
  return at::from_blob(
      ptr, ti.shape, [keep](void*) mutable { keep.reset(); }, options);
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
