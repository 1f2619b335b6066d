// Micro-batches of a mini-batch (verl: verl/workers/actor/dp_actor.py,
// verl/utils/seqlen_balancing.py): a fixed number of rows (ppo_micro_batch_size_per_gpu,
// log_prob_micro_batch_size_per_gpu) or, with use_dynamic_bsz, a token budget
// (ppo_max_token_len_per_gpu, log_prob_max_token_len_per_gpu) counted as the rows' attention_mask
// sums.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "verlpp/dist/communicator.h"

namespace verlpp::engine {

struct MicroBatching {
  std::optional<std::int64_t> rows;        // rows per micro-batch (static batching)
  std::optional<std::int64_t> max_tokens;  // token budget per micro-batch (dynamic batching)
};

// Row indices of each micro-batch, every row exactly once, in order. Token budget: consecutive
// rows are added while the micro-batch's token sum stays within the budget; a row longer than the
// budget gets a micro-batch of its own. Deviation from verl: verl balances the rows over
// ceil(total / budget) micro-batches with the Karmarkar-Karp partition and reorders them; verlpp
// keeps the row order (the results are the same; the number of micro-batches can differ).
// Neither set: one micro-batch. With a token budget and several data-parallel ranks in `dp`, the
// count is the largest over the ranks (verl all-reduces it with MAX, so that every rank runs as
// many forward/backward passes, which sharded training's per-layer collectives need): a rank with
// fewer halves its micro-batch of most tokens (of two rows or more) until it has as many.
// attention_mask: [B, L]. Throws verlpp::Error when a size is < 1, or when a rank has fewer rows
// than the count.
std::vector<std::vector<std::int64_t>> micro_batch_indices(const at::Tensor& attention_mask,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp = {});

}  // namespace verlpp::engine
