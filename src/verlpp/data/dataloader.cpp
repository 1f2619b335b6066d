#include "verlpp/data/dataloader.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>

#include <mutex>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

std::string to_hex(const at::Tensor& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const auto contiguous = bytes.contiguous();
  const auto* data = contiguous.data_ptr<std::uint8_t>();
  std::string hex;
  hex.reserve(static_cast<std::size_t>(contiguous.numel()) * 2);
  for (std::int64_t i = 0; i < contiguous.numel(); ++i) {
    hex += kDigits[data[i] >> 4];
    hex += kDigits[data[i] & 0xF];
  }
  return hex;
}

at::Tensor from_hex(const std::string& hex) {
  const auto nibble = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw Error("dataloader state: generator_state is not lower-case hex");
  };
  if (hex.size() % 2 != 0) throw Error("dataloader state: generator_state has odd length");
  auto bytes = at::empty({static_cast<std::int64_t>(hex.size() / 2)}, at::kByte);
  auto* data = bytes.data_ptr<std::uint8_t>();
  for (std::size_t i = 0; i < hex.size() / 2; ++i) {
    data[i] = static_cast<std::uint8_t>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  }
  return bytes;
}

template <typename T>
T field(const nlohmann::json& json, const char* key) {
  if (!json.contains(key)) throw Error(fmt::format("dataloader state: missing '{}'", key));
  try {
    return json.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("dataloader state: '{}' has the wrong type", key));
  }
}

}  // namespace

nlohmann::json DataLoaderState::to_json() const {
  return {{"epoch", epoch},
          {"next_batch", next_batch},
          {"dataset_size", dataset_size},
          {"batch_size", batch_size},
          {"generator_state", generator_state}};
}

DataLoaderState DataLoaderState::from_json(const nlohmann::json& json) {
  DataLoaderState state;
  state.epoch = field<std::int64_t>(json, "epoch");
  state.next_batch = field<std::int64_t>(json, "next_batch");
  state.dataset_size = field<std::int64_t>(json, "dataset_size");
  state.batch_size = field<std::int64_t>(json, "batch_size");
  state.generator_state = field<std::string>(json, "generator_state");
  return state;
}

StatefulDataLoader::StatefulDataLoader(std::int64_t dataset_size, const DataLoaderConfig& config)
    : dataset_size_(dataset_size),
      config_(config),
      generator_(
          at::make_generator<at::CPUGeneratorImpl>(static_cast<std::uint64_t>(config.seed))) {
  if (config.batch_size < 1) {
    throw Error(fmt::format("data.train_batch_size must be >= 1, got {}", config.batch_size));
  }
  if (batches_per_epoch() == 0) {
    throw Error(
        fmt::format("data.train_batch_size={} is larger than the dataset ({} rows): no full batch",
                    config.batch_size, dataset_size));
  }
  start_epoch();
}

std::int64_t StatefulDataLoader::batches_per_epoch() const {
  return config_.drop_last ? dataset_size_ / config_.batch_size
                           : (dataset_size_ + config_.batch_size - 1) / config_.batch_size;
}

void StatefulDataLoader::start_epoch() {
  {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    epoch_start_state_ = to_hex(generator_.get_state());
  }
  order_.resize(static_cast<std::size_t>(dataset_size_));
  if (!config_.shuffle) {
    for (std::int64_t i = 0; i < dataset_size_; ++i) order_[static_cast<std::size_t>(i)] = i;
    return;
  }
  const auto permutation = at::randperm(dataset_size_, generator_, at::kLong);
  const auto* data = permutation.data_ptr<std::int64_t>();
  order_.assign(data, data + dataset_size_);
}

std::vector<std::int64_t> StatefulDataLoader::next() {
  if (next_batch_ == batches_per_epoch()) {
    ++epoch_;
    next_batch_ = 0;
    start_epoch();
  }
  const std::int64_t start = next_batch_ * config_.batch_size;
  const std::int64_t end = std::min(start + config_.batch_size, dataset_size_);
  ++next_batch_;
  return {order_.begin() + start, order_.begin() + end};
}

DataLoaderState StatefulDataLoader::state() const {
  return {epoch_, next_batch_, dataset_size_, config_.batch_size, epoch_start_state_};
}

void StatefulDataLoader::load_state(const DataLoaderState& state) {
  if (state.dataset_size != dataset_size_ || state.batch_size != config_.batch_size) {
    throw Error(fmt::format(
        "dataloader state was saved for {} rows in batches of {}; this run has {} rows in batches "
        "of {} (resume with the saved data and batch size, or start a new run: "
        "trainer.resume_mode=disable or another trainer.default_local_dir)",
        state.dataset_size, state.batch_size, dataset_size_, config_.batch_size));
  }
  if (state.next_batch < 0 || state.next_batch > batches_per_epoch() || state.epoch < 0) {
    throw Error(fmt::format("dataloader state: batch {} of epoch {} is outside the {} batches",
                            state.next_batch, state.epoch, batches_per_epoch()));
  }
  try {
    std::lock_guard<std::mutex> lock(generator_.mutex());
    generator_.set_state(from_hex(state.generator_state));
  } catch (const c10::Error& e) {
    throw Error(std::string("dataloader state: generator_state is not a CPU generator state: ") +
                e.what_without_backtrace());
  }
  epoch_ = state.epoch;
  next_batch_ = state.next_batch;
  start_epoch();
}

}  // namespace verlpp::data
