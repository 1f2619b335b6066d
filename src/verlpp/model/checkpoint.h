// Hugging Face checkpoint directories: one `model.safetensors`, or shards listed by
// `model.safetensors.index.json` ({"metadata": {"total_size": bytes}, "weight_map": {tensor:
// file}}), as transformers' save_pretrained writes them.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "verlpp/model/safetensors.h"

namespace verlpp::model {

class CheckpointReader {
 public:
  // Opens `dir`: model.safetensors when present, else model.safetensors.index.json (every shard
  // it names is opened), the order transformers' from_pretrained looks in. Throws verlpp::Error
  // naming the directory when neither exists, and naming the index when it is malformed or names a
  // missing file or a tensor its shard lacks.
  explicit CheckpointReader(const std::string& dir);

  const std::string& dir() const { return dir_; }
  std::vector<std::string> names() const;  // sorted
  bool contains(const std::string& name) const { return where_.count(name) != 0; }
  // Throw verlpp::Error "checkpoint DIR has no tensor 'NAME'" when absent.
  const TensorInfo& info(const std::string& name) const;
  // The whole tensor or rows [begin, begin + count) of its dim 0: CPU tensors of the stored dtype
  // that own their bytes (errors as SafetensorsFile's).
  at::Tensor tensor(const std::string& name) const;
  at::Tensor rows(const std::string& name, int64_t begin, int64_t count) const;
  // Counts `name` as read without reading it: a deferred load checks its tensors now and reads
  // their rows later.
  void mark_read(const std::string& name) const;
  // The names (sorted) that no tensor(), rows() or mark_read() call has named so far: after a model
  // is loaded, the checkpoint's tensors the model has no place for (transformers' "unexpected
  // keys").
  std::vector<std::string> unread() const;

  // A key mapping as transformers' conversion rules apply one (e.g. qwen3_5_text's PrefixChange):
  // every tensor named FROM... is seen as TO..., and the tensors whose names start with one of
  // `ignored` are hidden. Returns the number hidden.
  int64_t map_prefix(const std::string& from, const std::string& to,
                     const std::vector<std::string>& ignored);

 private:
  struct Location {
    size_t file = 0;     // index into files_
    std::string stored;  // the name in that file
  };
  const Location& location(const std::string& name) const;
  std::string dir_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, Location> where_;  // tensor name as the model sees it
  mutable std::set<std::string> read_;
};

// Writes `tensors` into `dir` (created if needed) as save_pretrained does: one model.safetensors
// when max_shard_bytes is 0 or everything fits, else model-0000i-of-0000n.safetensors files of at
// most max_shard_bytes each (a larger tensor gets a shard of its own) plus
// model.safetensors.index.json. Tensors are written in the given order. Throws verlpp::Error on
// I/O failure.
void write_checkpoint(const std::string& dir,
                      const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                      uint64_t max_shard_bytes = 0);

}  // namespace verlpp::model
