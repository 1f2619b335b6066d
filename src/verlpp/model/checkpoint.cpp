#include "verlpp/model/checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_file.h"

namespace verlpp::model {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSingle = "model.safetensors";
constexpr const char* kIndex = "model.safetensors.index.json";

}  // namespace

CheckpointReader::CheckpointReader(const std::string& dir) : dir_(dir) {
  const fs::path single = fs::path(dir) / kSingle;
  const fs::path index_path = fs::path(dir) / kIndex;
  std::error_code ec;
  // transformers' order: model.safetensors first, the index only without it.
  const bool has_single = fs::exists(single, ec) || ec;
  if (!has_single && (fs::exists(index_path, ec) || ec)) {
    const nlohmann::json index = read_json_file(index_path.string(), "checkpoint index");
    if (!index.contains("weight_map") || !index["weight_map"].is_object()) {
      throw Error(index_path.string() + ": expected an object 'weight_map' {tensor: file}");
    }
    std::map<std::string, size_t> file_ids;
    for (const auto& [name, file] : index["weight_map"].items()) {
      if (!file.is_string())
        throw Error(index_path.string() + ": weight_map['" + name + "'] is not a file name");
      const std::string f = file.get<std::string>();
      auto it = file_ids.find(f);
      if (it == file_ids.end()) {
        // Nothing there, not even a link: said with the tensor that needs it; anything else that
        // is not a regular file (a folder, a device, a FIFO, a dangling link) SafetensorsFile
        // names.
        if (!fs::exists(fs::symlink_status(fs::path(dir) / f, ec))) {
          throw Error(index_path.string() + ": shard '" + f + "' (for tensor '" + name +
                      "') does not exist");
        }
        files_.push_back(std::make_unique<SafetensorsFile>((fs::path(dir) / f).string()));
        it = file_ids.emplace(f, files_.size() - 1).first;
      }
      if (!files_[it->second]->contains(name)) {
        throw Error(index_path.string() + ": tensor '" + name + "' is not in its shard '" + f +
                    "'");
      }
      where_[name] = {it->second, name};
    }
    return;
  }
  if (!has_single) {
    // A dangling link under either name is named as such (transformers, too, looks past it).
    for (const fs::path& path : {single, index_path}) {
      if (fs::is_symlink(fs::symlink_status(path, ec))) {
        require_regular_file(path.string(), "model weights");
      }
    }
    throw Error("checkpoint " + dir + ": neither " + kSingle + " nor " + kIndex + " found");
  }
  require_regular_file(single.string(), "model weights");
  files_.push_back(std::make_unique<SafetensorsFile>(single.string()));
  for (const auto& name : files_[0]->names()) where_[name] = {0, name};
}

std::vector<std::string> CheckpointReader::names() const {
  std::vector<std::string> out;
  out.reserve(where_.size());
  for (const auto& [name, file] : where_) out.push_back(name);
  return out;
}

const CheckpointReader::Location& CheckpointReader::location(const std::string& name) const {
  const auto it = where_.find(name);
  if (it == where_.end()) throw Error("checkpoint " + dir_ + " has no tensor '" + name + "'");
  return it->second;
}

const TensorInfo& CheckpointReader::info(const std::string& name) const {
  const Location& at = location(name);
  return files_[at.file]->info(at.stored);
}

at::Tensor CheckpointReader::tensor(const std::string& name) const {
  const Location& at = location(name);
  at::Tensor t = files_[at.file]->tensor(at.stored);
  read_.insert(name);
  return t;
}

at::Tensor CheckpointReader::rows(const std::string& name, int64_t begin, int64_t count) const {
  const Location& at = location(name);
  at::Tensor t = files_[at.file]->rows(at.stored, begin, count);
  read_.insert(name);
  return t;
}

void CheckpointReader::mark_read(const std::string& name) const {
  location(name);
  read_.insert(name);
}

std::vector<std::string> CheckpointReader::unread() const {
  std::vector<std::string> out;
  for (const auto& [name, location] : where_) {
    if (read_.count(name) == 0) out.push_back(name);
  }
  return out;
}

int64_t CheckpointReader::map_prefix(const std::string& from, const std::string& to,
                                     const std::vector<std::string>& ignored) {
  std::map<std::string, Location> mapped;
  int64_t hidden = 0;
  for (auto& [name, at] : where_) {
    const bool skip = std::any_of(ignored.begin(), ignored.end(),
                                  [&](const std::string& p) { return name.starts_with(p); });
    if (skip) {
      ++hidden;
    } else if (name.starts_with(from)) {
      mapped[to + name.substr(from.size())] = at;
    } else {
      mapped[name] = at;
    }
  }
  where_ = std::move(mapped);
  return hidden;
}

void write_checkpoint(const std::string& dir,
                      const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                      uint64_t max_shard_bytes) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(dir + ": cannot create directory (" + ec.message() + ")");
  std::vector<std::vector<std::pair<std::string, at::Tensor>>> shards(1);
  uint64_t shard_bytes = 0;
  uint64_t total = 0;
  for (const auto& entry : tensors) {
    const uint64_t bytes = entry.second.numel() * entry.second.element_size();
    if (max_shard_bytes > 0 && !shards.back().empty() && shard_bytes + bytes > max_shard_bytes) {
      shards.emplace_back();
      shard_bytes = 0;
    }
    shards.back().push_back(entry);
    shard_bytes += bytes;
    total += bytes;
  }
  if (shards.size() == 1) {
    write_safetensors((fs::path(dir) / kSingle).string(), shards[0]);
    return;
  }
  nlohmann::json weight_map = nlohmann::json::object();
  for (size_t i = 0; i < shards.size(); ++i) {
    const std::string file =
        fmt::format("model-{:05d}-of-{:05d}.safetensors", i + 1, shards.size());
    write_safetensors((fs::path(dir) / file).string(), shards[i]);
    for (const auto& [name, t] : shards[i]) weight_map[name] = file;
  }
  const nlohmann::json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
  write_file_atomically(fs::path(dir) / kIndex, index.dump(2) + "\n");
}

}  // namespace verlpp::model
