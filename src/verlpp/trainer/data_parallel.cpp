#include "verlpp/trainer/data_parallel.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "verlpp/core/error.h"

namespace verlpp::trainer {

RowRange rank_rows(std::int64_t rows, const dist::Communicator& dp) {
  const std::int64_t share = (rows + dp.size() - 1) / dp.size();
  const std::int64_t begin = std::min(rows, dp.rank() * share);
  return {begin, std::min(rows, begin + share)};
}

void check_even_split(std::int64_t rows, const dist::Communicator& dp, const std::string& what) {
  if (rows % dp.size() != 0) {
    throw Error(fmt::format("{}: {} rows cannot be split evenly over {} data-parallel ranks", what,
                            rows, dp.size()));
  }
}

data::Batch local_rows(const data::Batch& batch, const dist::Communicator& dp,
                       const std::string& what) {
  if (dp.size() == 1) return batch;
  check_even_split(batch.size(), dp, what);
  const RowRange range = rank_rows(batch.size(), dp);
  return batch.slice(range.begin, range.end);
}

namespace {

// Decode steps between two looks at the other ranks' stop flag (a store round trip, about 0.1 ms,
// against a decode step of milliseconds).
constexpr std::int64_t kStopPollSteps = 8;

// `stop` shared over the ranks of a generate_on_ranks call: a rank whose own check returns true
// raises the call's flag in the store (named by the call's seed and first row, the same on every
// rank), and every rank looks at that flag every kStopPollSteps checks, so that a signal reaching
// one rank stops the others within a few decode steps (bt19 B1: they generated their whole share
// first, long enough to outlast nccl_timeout).
rollout::StopCheck shared_stop(const rollout::StopCheck& stop, const dist::Communicator& dp,
                               std::uint64_t seed, std::int64_t first_row) {
  if (!stop) return {};
  const std::string flag = fmt::format("generation_stop/{}/{}", seed, first_row);
  return [stop, &dp, flag, checks = std::int64_t{0}]() mutable {
    if (stop()) {
      dp.raise_flag(flag);
      return true;
    }
    return ++checks % kStopPollSteps == 0 && dp.flag_raised(flag);
  };
}

}  // namespace

data::Batch generate_on_ranks(const model::CausalLM& model, const data::Batch& prompts,
                              const rollout::SamplingParams& params, std::uint64_t seed,
                              const dist::Communicator& dp, std::int64_t first_row,
                              const rollout::StopCheck& stop) {
  if (dp.backend() == "none") {
    return rollout::generate_sequences(model, prompts, params, seed, first_row, stop);
  }
  const std::int64_t rows = prompts.size();
  const std::int64_t share = (rows + dp.size() - 1) / dp.size();
  const std::int64_t first = dp.rank() * share;
  std::vector<std::int64_t> mine;
  for (std::int64_t i = first; i < first + share; ++i) mine.push_back(std::min(i, rows - 1));
  std::optional<data::Batch> generated;
  try {
    generated =
        rollout::generate_sequences(model, prompts.select(mine), params, seed, first_row + first,
                                    shared_stop(stop, dp, seed, first_row));
  } catch (const rollout::GenerationStopped&) {
  }
  if (stop && dp.all_reduce(generated ? 0.0 : 1.0, dist::ReduceOp::max) > 0) {
    throw rollout::GenerationStopped("rollout: generation stopped on a rank");
  }
  const data::Batch& local = *generated;
  data::Batch out;
  out.meta_info = local.meta_info;
  for (const auto& [key, values] : prompts.non_tensors()) out.set_non_tensor(key, values);
  for (const auto& [key, values] : prompts.row_tensors()) out.set_row_tensors(key, values);
  for (const auto& [key, tensor] : local.tensors()) {
    out.set_tensor(key, dp.all_gather(tensor).narrow(0, 0, rows));
  }
  return out;
}

}  // namespace verlpp::trainer
