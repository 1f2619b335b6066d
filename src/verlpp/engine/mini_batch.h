// A worker's mini-batches over its data-parallel ranks (distributed.md §1.4, §1.6): each rank
// updates on its slice, so its mini-batches are ppo_mini_batch_size × rollout.n / dp rows, and the
// loss is normalised by the counts of the global mini-batch, summed over the ranks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "verlpp/algo/agg_loss.h"
#include "verlpp/data/batch.h"
#include "verlpp/dist/communicator.h"

namespace verlpp::engine {

// mini_batch_rows / dp. Throws verlpp::Error naming `worker` and both numbers when dp does not
// divide mini_batch_rows.
std::int64_t local_mini_batch_rows(std::int64_t mini_batch_rows, const dist::Communicator& dp,
                                   const std::string& worker);

struct GlobalMiniBatch {
  algo::GlobalBatchInfo info;  // valid response tokens and rows, loss_scale_factor
  double tokens = 0;           // real tokens (attention_mask), e.g. the MoE aux loss's share
};

// The counts of the global mini-batch whose slice on this rank is `mini` (tensors response_mask,
// attention_mask), summed over the ranks in one all-reduce.
GlobalMiniBatch global_mini_batch(const data::Batch& mini, const dist::Communicator& dp,
                                  std::optional<double> loss_scale_factor);

}  // namespace verlpp::engine
