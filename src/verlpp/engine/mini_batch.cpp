#include "verlpp/engine/mini_batch.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <vector>

#include "verlpp/core/error.h"

namespace verlpp::engine {

std::int64_t local_mini_batch_rows(std::int64_t mini_batch_rows, const dist::Communicator& dp,
                                   const std::string& worker) {
  if (mini_batch_rows % dp.size() != 0) {
    throw Error(
        fmt::format("{}: ppo_mini_batch_size × rollout.n = {} rows are not divisible by the {} "
                    "data-parallel ranks",
                    worker, mini_batch_rows, dp.size()));
  }
  return mini_batch_rows / dp.size();
}

GlobalMiniBatch global_mini_batch(const data::Batch& mini, const dist::Communicator& dp,
                                  std::optional<double> loss_scale_factor) {
  const std::vector<double> sums = dp.all_reduce(
      {mini.tensor("response_mask").ne(0).sum().item<double>(), static_cast<double>(mini.size()),
       mini.tensor("attention_mask").ne(0).sum().item<double>()},
      dist::ReduceOp::sum);
  GlobalMiniBatch out;
  out.info.batch_num_tokens = sums[0];
  out.info.global_batch_size = sums[1];
  out.info.loss_scale_factor = loss_scale_factor;
  out.tokens = sums[2];
  return out;
}

}  // namespace verlpp::engine
