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
// Splits `pieces` in place (order kept) until there are `count`: each time the piece of largest
// weight(piece) among those of two items or more is halved (the first such on ties). Returns
// false when a split is needed and no piece has two items. The equalised micro-batch counts of
// micro_batch_indices and of the SFT trainer.
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

}  // namespace verlpp::engine
