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

// Row indices of each micro-batch, every row exactly once. Rows per micro-batch: consecutive rows
// in order. Token budget (verl's rearrange_micro_batches): min(rows, ceil(total tokens / budget))
// micro-batches, the largest count over the data-parallel ranks in `dp` (verl all-reduces it with
// MAX, so that every rank runs as many forward/backward passes, which sharded training's per-layer
// collectives need), whose rows are the Karmarkar-Karp partition of the token counts
// (data::karmarkar_karp_partitions, unequal sizes: sums as equal as the heuristic finds, each
// partition's rows ascending), in verl's partition order; a micro-batch may pass the budget, as in
// verl. Neither set: one micro-batch. Throws verlpp::Error when a size is < 1, or when a rank has
// fewer rows than the count.
// Rows of tokens[r] tokens each (SFT's examples).
std::vector<std::vector<std::int64_t>> micro_batch_indices(const std::vector<std::int64_t>& tokens,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp = {});

// Rows of a padded batch, a row's tokens counted as its attention_mask sum; attention_mask: [B, L].
std::vector<std::vector<std::int64_t>> micro_batch_indices(const at::Tensor& attention_mask,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp = {});

// The micro-batches' outputs back in the batch's row order: parts[i] holds the rows pieces[i]
// lists, in that order (as micro_batch_indices returns them), along dimension 0; the result is
// their concatenation with row r of the batch at index r.
at::Tensor in_batch_order(const std::vector<at::Tensor>& parts,
                          const std::vector<std::vector<std::int64_t>>& pieces);

}  // namespace verlpp::engine
