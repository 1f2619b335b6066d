// verl's train dataloader position logic (verl/trainer/main_ppo.py create_rl_sampler +
// torchdata StatefulDataLoader): batches of data.train_batch_size row indices, drop_last, a new
// seeded shuffle each epoch, and a state that resumes exactly.
#pragma once

#include <ATen/core/Generator.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verlpp::data {

struct DataLoaderConfig {
  std::int64_t batch_size = 1;  // data.train_batch_size (prompts per step)
  bool shuffle = true;          // data.shuffle
  std::int64_t seed = 1;        // data.seed; verl/torchdata use 1 when it is null
  bool drop_last = true;        // verl always drops the last partial batch
};

// Where the loader stands: the batch `next_batch` of epoch `epoch` comes next. `generator_state`
// is the hex-encoded CPU generator state at the start of that epoch (before its shuffle), so
// restoring it reproduces the epoch's permutation and every later one.
struct DataLoaderState {
  std::int64_t epoch = 0;
  std::int64_t next_batch = 0;
  std::int64_t dataset_size = 0;
  std::int64_t batch_size = 0;
  std::string generator_state;

  nlohmann::json to_json() const;
  // Throws verlpp::Error naming the missing or mistyped key.
  static DataLoaderState from_json(const nlohmann::json& json);
};

class StatefulDataLoader {
 public:
  // Throws verlpp::Error when batch_size < 1, or when the dataset has fewer rows than one batch
  // with drop_last (no batch at all: names both numbers).
  StatefulDataLoader(std::int64_t dataset_size, const DataLoaderConfig& config);

  // Batches per epoch: size / batch_size with drop_last, else rounded up.
  std::int64_t batches_per_epoch() const;
  // Row indices of the next batch; after the last batch of an epoch the next call starts the next
  // epoch with a new permutation (one at::randperm draw from the generator seeded with data.seed).
  std::vector<std::int64_t> next();
  std::int64_t epoch() const { return epoch_; }
  std::int64_t next_batch() const { return next_batch_; }

  DataLoaderState state() const;
  // Resumes at `state`. Throws verlpp::Error when it was saved for another dataset size or batch
  // size, or its batch index is outside the epoch.
  void load_state(const DataLoaderState& state);

 private:
  void start_epoch();

  std::int64_t dataset_size_;
  DataLoaderConfig config_;
  at::Generator generator_;
  std::string epoch_start_state_;
  std::vector<std::int64_t> order_;
  std::int64_t epoch_ = 0;
  std::int64_t next_batch_ = 0;
};

}  // namespace verlpp::data
