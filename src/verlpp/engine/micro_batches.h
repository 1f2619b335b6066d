// Micro-batches of a mini-batch (verl: verl/workers/actor/dp_actor.py,
// verl/utils/seqlen_balancing.py): a fixed number of rows (ppo_micro_batch_size_per_gpu,
// log_prob_micro_batch_size_per_gpu) or, with use_dynamic_bsz, a token budget
// (ppo_max_token_len_per_gpu, log_prob_max_token_len_per_gpu) counted as the rows' attention_mask
// sums.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
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
// verl. Neither set: one micro-batch. attention_mask: [B, L]. Throws verlpp::Error when a size is
// < 1, or when a rank has fewer rows than the count.
// Splits `pieces` in place (order kept) until there are `count`: each time the piece of largest
// weight(piece) among those of two items or more is halved (the first such on ties). Returns
// false when a split is needed and no piece has two items. The SFT trainer's equalised
// micro-batch counts.
template <typename Piece, typename Weight>
bool split_to_count(std::vector<Piece>& pieces, std::int64_t count, const Weight& weight) {
  while (static_cast<std::int64_t>(pieces.size()) < count) {
    auto best = pieces.end();
    for (auto it = pieces.begin(); it != pieces.end(); ++it) {
      if (it->size() > 1 && (best == pieces.end() || weight(*it) > weight(*best))) best = it;
    }
    if (best == pieces.end()) return false;
    const auto half = static_cast<std::ptrdiff_t>(best->size() / 2);
    Piece second(best->begin() + half, best->end());
    best->resize(static_cast<std::size_t>(half));
    pieces.insert(best + 1, std::move(second));
  }
  return true;
}

std::vector<std::vector<std::int64_t>> micro_batch_indices(const at::Tensor& attention_mask,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp = {});

// The micro-batches' outputs back in the batch's row order: parts[i] holds the rows pieces[i]
// lists, in that order (as micro_batch_indices returns them), along dimension 0; the result is
// their concatenation with row r of the batch at index r.
at::Tensor in_batch_order(const std::vector<at::Tensor>& parts,
                          const std::vector<std::vector<std::int64_t>>& pieces);

}  // namespace verlpp::engine
