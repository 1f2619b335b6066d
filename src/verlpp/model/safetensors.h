// The safetensors file format (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON header {name: {"dtype", "shape",
// "data_offsets": [begin, end]}, "__metadata__": {string: string}}, then the raw little-endian
// tensor bytes (offsets relative to the end of the header).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace verlpp::model {

struct TensorInfo {
  at::ScalarType
      dtype;  // from "F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL"
  std::vector<int64_t> shape;  // [] for a scalar
  uint64_t begin = 0;          // byte offsets into the data section
  uint64_t end = 0;
};

// A safetensors file, read with pread(2) from a descriptor held open: tensor() and rows() return
// CPU tensors that own their bytes (nothing stays mapped, so a file cut short or rewritten in place
// while a model loads gives an error naming it rather than SIGBUS; a file replaced by rename keeps
// being read as it was opened).
class SafetensorsFile {
 public:
  // Opens and validates the file. Throws verlpp::Error naming the file when it is not a regular
  // file (require_regular_file: a folder, a device, a FIFO, a dangling link) or cannot be opened,
  // the header is truncated or not JSON, or an entry has an unknown dtype, a size that does not
  // match its shape, or bytes outside the file.
  explicit SafetensorsFile(const std::string& path);

  const std::string& path() const { return path_; }
  std::vector<std::string> names() const;  // sorted
  bool contains(const std::string& name) const { return infos_.count(name) != 0; }
  // Throws verlpp::Error naming the tensor and file when absent.
  const TensorInfo& info(const std::string& name) const;
  // The whole tensor. Throws verlpp::Error naming the tensor and file when absent or when the file
  // no longer holds its bytes (shortened since it was opened) or cannot be read.
  at::Tensor tensor(const std::string& name) const;
  // Rows [begin, begin + count) of dim 0 ([count, ...]), reading only their bytes; errors as
  // tensor(), and for a scalar or rows outside [0, shape[0]).
  at::Tensor rows(const std::string& name, int64_t begin, int64_t count) const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  struct Descriptor;
  at::Tensor read(const std::string& name, const TensorInfo& info, std::vector<int64_t> shape,
                  uint64_t first_byte) const;
  std::string path_;
  std::shared_ptr<Descriptor> file_;
  uint64_t data_offset_ = 0;  // file offset of the data section (8 + header length)
  std::map<std::string, TensorInfo> infos_;
  std::map<std::string, std::string> metadata_;
};

// Writes tensors (any device; written as their dtype, contiguous) to `path` in name order, with
// `metadata` as "__metadata__" ("format": "pt" is added when absent, as transformers expects).
// The header is padded with spaces to a multiple of 8 bytes. Throws verlpp::Error on an I/O
// failure, a duplicate name or an unsupported dtype.
void write_safetensors(const std::string& path,
                       const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                       std::map<std::string, std::string> metadata = {});

// The safetensors dtype name of a ScalarType ("BF16", ...); throws verlpp::Error if it has none.
std::string safetensors_dtype_name(at::ScalarType dtype);

}  // namespace verlpp::model
