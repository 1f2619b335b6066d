// The trainer's batch over data-parallel ranks, as verl's DP_COMPUTE_PROTO dispatch splits it
// (distributed.md §1.2): rank r works on the contiguous rows [r·B/dp, (r+1)·B/dp) and the outputs
// are concatenated in rank order, so every rank holds the whole batch between the worker calls
// (rewards and advantages run on the whole batch on every rank, as on verl's controller).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "verlpp/data/batch.h"
#include "verlpp/dist/communicator.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::trainer {

// Rank r's contiguous rows [begin, end) of `rows`: ceil(rows / dp) each, the last ranks fewer (or
// none) when dp does not divide rows.
struct RowRange {
  std::int64_t begin = 0, end = 0;
};
RowRange rank_rows(std::int64_t rows, const dist::Communicator& dp);

// Throws verlpp::Error naming `what` and both numbers when dp does not divide rows.
void check_even_split(std::int64_t rows, const dist::Communicator& dp, const std::string& what);

// Rank r's rows of `batch` (check_even_split, then rank_rows). Throws verlpp::Error naming `what`
// and both numbers when the data-parallel size does not divide the batch.
data::Batch local_rows(const data::Batch& batch, const dist::Communicator& dp,
                       const std::string& what);

// rollout::generate_sequences over the ranks: each rank generates a contiguous share of the
// prompts (the batch padded with copies of its last row to a multiple of dp; every row keeps its
// index in the whole batch, plus first_row, as its sampling key: a batch generated in pieces
// samples what the whole would), and every rank returns the whole generated batch with the
// prompts' non-tensor fields. Equal to one rank generating the whole batch. With `stop`, every rank
// must pass one: a rank whose check returns true abandons its share and raises a flag in the
// group's store, which the other ranks look at every 8 decode steps and abandon theirs; then (one
// all-reduce, for a rank that had finished) every rank throws rollout::GenerationStopped.
data::Batch generate_on_ranks(const model::CausalLM& model, const data::Batch& prompts,
                              const rollout::SamplingParams& params, std::uint64_t seed,
                              const dist::Communicator& dp, std::int64_t first_row = 0,
                              const rollout::StopCheck& stop = {});

}  // namespace verlpp::trainer
