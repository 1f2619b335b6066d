// The batch container that flows through the trainer (verl/protocol.py DataProto): named tensors
// whose first dimension is the batch, per-row non-tensor values (uid, data_source, ground truth,
// raw chat, ...), per-row tensors of differing shapes (an image prompt's pixel_values and
// image_grid_thw: verl keeps them in non_tensor_batch["multi_modal_inputs"], one dict of tensors
// per row) and batch-level meta info.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verlpp::data {

class Batch {
 public:
  // Rows in the batch; 0 for an empty batch.
  std::int64_t size() const { return size_; }

  // Adds or replaces a tensor [size, ...]. The first field sets the size; later ones must match it.
  // Throws verlpp::Error naming the key on a size mismatch or a 0-dimensional tensor.
  void set_tensor(const std::string& key, const at::Tensor& tensor);
  // Adds or replaces a per-row value list (one JSON value per row); same size rule.
  void set_non_tensor(const std::string& key, std::vector<nlohmann::json> values);

  // Adds or replaces a per-row tensor list: one tensor per row, shapes free (a row without images
  // holds an empty [0, ...] tensor); same size rule. Throws verlpp::Error naming the key for an
  // undefined tensor.
  void set_row_tensors(const std::string& key, std::vector<at::Tensor> values);

  // Throw verlpp::Error naming the key and the keys that exist when `key` is absent.
  const at::Tensor& tensor(const std::string& key) const;
  const std::vector<nlohmann::json>& non_tensor(const std::string& key) const;
  const std::vector<at::Tensor>& row_tensors(const std::string& key) const;
  bool has_tensor(const std::string& key) const { return tensors_.count(key) > 0; }
  bool has_non_tensor(const std::string& key) const { return non_tensors_.count(key) > 0; }
  bool has_row_tensors(const std::string& key) const { return row_tensors_.count(key) > 0; }
  const std::map<std::string, at::Tensor>& tensors() const { return tensors_; }
  const std::map<std::string, std::vector<nlohmann::json>>& non_tensors() const {
    return non_tensors_;
  }
  const std::map<std::string, std::vector<at::Tensor>>& row_tensors() const { return row_tensors_; }

  nlohmann::json meta_info = nlohmann::json::object();  // copied whole by every operation below

  // Rows `indices` in that order (each in [0, size)); throws verlpp::Error otherwise.
  Batch select(const std::vector<std::int64_t>& indices) const;
  // Rows [start, end).
  Batch slice(std::int64_t start, std::int64_t end) const;
  // Each row repeated `times` times in place: rows a,b -> a,a,b,b for times = 2 (DataProto.repeat
  // with interleave=True, used for rollout.n). Throws verlpp::Error when times < 1.
  Batch repeat_interleave(std::int64_t times) const;
  // Consecutive pieces of `piece_size` rows, the last one smaller when size is not a multiple
  // (DataProto.split; mini- and micro-batches). Throws verlpp::Error when piece_size < 1.
  std::vector<Batch> split(std::int64_t piece_size) const;
  // `chunks` equal pieces (DataProto.chunk); throws verlpp::Error unless size % chunks == 0.
  std::vector<Batch> chunk(std::int64_t chunks) const;
  // Rows of all batches in order (DataProto.concat); every batch must have the same tensor,
  // non-tensor and per-row tensor keys (verlpp::Error naming the first difference). meta_info is
  // the first batch's.
  static Batch concat(const std::vector<Batch>& batches);

 private:
  void check_size(const std::string& key, std::int64_t rows);

  std::int64_t size_ = 0;
  bool has_fields_ = false;
  std::map<std::string, at::Tensor> tensors_;
  std::map<std::string, std::vector<nlohmann::json>> non_tensors_;
  std::map<std::string, std::vector<at::Tensor>> row_tensors_;
};

}  // namespace verlpp::data
