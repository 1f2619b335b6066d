#include "verlpp/data/batch.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

template <typename Map>
std::string key_list(const Map& map) {
  std::string keys;
  for (const auto& [key, value] : map) keys += (keys.empty() ? "" : ", ") + key;
  return keys.empty() ? "(none)" : keys;
}

template <typename Map>
std::string keys_of(const Map& map) {
  std::string keys;
  for (const auto& [key, value] : map) keys += key + ";";
  return keys;
}

// values[i] for each of `indices` (checked by the caller), in that order.
template <typename T>
std::vector<T> picked(const std::vector<T>& values, const std::vector<std::int64_t>& indices) {
  std::vector<T> out;
  out.reserve(indices.size());
  for (const auto index : indices) out.push_back(values[static_cast<std::size_t>(index)]);
  return out;
}

// The values of `key` of every batch of `batches`, one after another (`field` picks the map).
template <typename T, typename Field>
std::vector<T> joined(const std::vector<Batch>& batches, const std::string& key,
                      const Field& field) {
  std::vector<T> all;
  for (const auto& batch : batches) {
    const auto& part = field(batch).at(key);
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

}  // namespace

void Batch::check_size(const std::string& key, std::int64_t rows) {
  const bool replacing_only_field =
      tensors_.size() + non_tensors_.size() + row_tensors_.size() == 1 &&
      (tensors_.count(key) > 0 || non_tensors_.count(key) > 0 || row_tensors_.count(key) > 0);
  if (has_fields_ && !replacing_only_field && rows != size_) {
    throw Error(fmt::format("batch field '{}' has {} rows, the batch has {}", key, rows, size_));
  }
  size_ = rows;
  has_fields_ = true;
}

void Batch::set_tensor(const std::string& key, const at::Tensor& tensor) {
  if (!tensor.defined() || tensor.dim() == 0) {
    throw Error(fmt::format("batch tensor '{}' needs a batch dimension", key));
  }
  check_size(key, tensor.size(0));
  tensors_[key] = tensor;
}

void Batch::set_non_tensor(const std::string& key, std::vector<nlohmann::json> values) {
  check_size(key, static_cast<std::int64_t>(values.size()));
  non_tensors_[key] = std::move(values);
}

void Batch::set_row_tensors(const std::string& key, std::vector<at::Tensor> values) {
  for (std::size_t r = 0; r < values.size(); ++r) {
    if (!values[r].defined()) {
      throw Error(fmt::format("batch per-row tensor '{}' is undefined at row {}", key, r));
    }
  }
  check_size(key, static_cast<std::int64_t>(values.size()));
  row_tensors_[key] = std::move(values);
}

const at::Tensor& Batch::tensor(const std::string& key) const {
  const auto it = tensors_.find(key);
  if (it == tensors_.end()) {
    throw Error(fmt::format("batch has no tensor '{}'; it has: {}", key, key_list(tensors_)));
  }
  return it->second;
}

const std::vector<nlohmann::json>& Batch::non_tensor(const std::string& key) const {
  const auto it = non_tensors_.find(key);
  if (it == non_tensors_.end()) {
    throw Error(
        fmt::format("batch has no non-tensor field '{}'; it has: {}", key, key_list(non_tensors_)));
  }
  return it->second;
}

const std::vector<at::Tensor>& Batch::row_tensors(const std::string& key) const {
  const auto it = row_tensors_.find(key);
  if (it == row_tensors_.end()) {
    throw Error(
        fmt::format("batch has no per-row tensor '{}'; it has: {}", key, key_list(row_tensors_)));
  }
  return it->second;
}

Batch Batch::select(const std::vector<std::int64_t>& indices) const {
  for (const auto index : indices) {
    if (index < 0 || index >= size_) {
      throw Error(fmt::format("batch row {} out of range [0, {})", index, size_));
    }
  }
  Batch out;
  out.meta_info = meta_info;
  const auto index_tensor =
      at::tensor(std::vector<std::int64_t>(indices.begin(), indices.end()), at::kLong);
  for (const auto& [key, tensor] : tensors_) {
    out.set_tensor(key, tensor.index_select(0, index_tensor.to(tensor.device())));
  }
  for (const auto& [key, values] : non_tensors_) out.set_non_tensor(key, picked(values, indices));
  for (const auto& [key, values] : row_tensors_) out.set_row_tensors(key, picked(values, indices));
  if (!out.has_fields_) out.size_ = static_cast<std::int64_t>(indices.size());
  return out;
}

Batch Batch::slice(std::int64_t start, std::int64_t end) const {
  if (start < 0 || start > end || end > size_) {
    throw Error(fmt::format("batch slice [{}, {}) outside [0, {})", start, end, size_));
  }
  std::vector<std::int64_t> indices;
  for (auto i = start; i < end; ++i) indices.push_back(i);
  return select(indices);
}

Batch Batch::repeat_interleave(std::int64_t times) const {
  if (times < 1) throw Error(fmt::format("repeat_interleave: times must be >= 1, got {}", times));
  std::vector<std::int64_t> indices;
  for (std::int64_t i = 0; i < size_; ++i) {
    for (std::int64_t k = 0; k < times; ++k) indices.push_back(i);
  }
  return select(indices);
}

std::vector<Batch> Batch::split(std::int64_t piece_size) const {
  if (piece_size < 1)
    throw Error(fmt::format("split: piece size must be >= 1, got {}", piece_size));
  std::vector<Batch> pieces;
  for (std::int64_t start = 0; start < size_; start += piece_size) {
    pieces.push_back(slice(start, std::min(start + piece_size, size_)));
  }
  return pieces;
}

std::vector<Batch> Batch::chunk(std::int64_t chunks) const {
  if (chunks < 1 || size_ % chunks != 0) {
    throw Error(
        fmt::format("chunk: a batch of {} rows cannot be cut into {} equal chunks", size_, chunks));
  }
  return split(size_ / chunks);
}

Batch Batch::concat(const std::vector<Batch>& batches) {
  if (batches.empty()) return Batch{};
  const Batch& first = batches.front();
  for (std::size_t b = 1; b < batches.size(); ++b) {
    const Batch& other = batches[b];
    if (keys_of(other.tensors_) != keys_of(first.tensors_) ||
        keys_of(other.non_tensors_) != keys_of(first.non_tensors_) ||
        keys_of(other.row_tensors_) != keys_of(first.row_tensors_)) {
      throw Error(fmt::format(
          "concat: batch {} has fields [{} | {} | {}], batch 0 has [{} | {} | {}]", b,
          key_list(other.tensors_), key_list(other.non_tensors_), key_list(other.row_tensors_),
          key_list(first.tensors_), key_list(first.non_tensors_), key_list(first.row_tensors_)));
    }
  }
  Batch out;
  out.meta_info = first.meta_info;
  for (const auto& [key, tensor] : first.tensors_) {
    std::vector<at::Tensor> parts;
    for (const auto& batch : batches) parts.push_back(batch.tensors_.at(key));
    out.set_tensor(key, at::cat(parts, 0));
  }
  for (const auto& [key, values] : first.non_tensors_) {
    out.set_non_tensor(
        key, joined<nlohmann::json>(
                 batches, key, [](const Batch& b) -> const auto& { return b.non_tensors(); }));
  }
  for (const auto& [key, values] : first.row_tensors_) {
    out.set_row_tensors(
        key, joined<at::Tensor>(
                 batches, key, [](const Batch& b) -> const auto& { return b.row_tensors(); }));
  }
  if (!out.has_fields_) {
    for (const auto& batch : batches) out.size_ += batch.size_;
  }
  return out;
}

}  // namespace verlpp::data
