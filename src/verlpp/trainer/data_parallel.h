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

// Rank r's rows of `batch`. Throws verlpp::Error naming `what` and both numbers when the
// data-parallel size does not divide the batch.
data::Batch local_rows(const data::Batch& batch, const dist::Communicator& dp,
                       const std::string& what);

// Every rank's [b, ...] tensor concatenated in rank order: [dp·b, ...] on every rank.
at::Tensor gather_rows(const at::Tensor& local, const dist::Communicator& dp);

// rollout::generate_sequences over the ranks: each rank generates a contiguous share of the
// prompts (the batch padded with copies of its last row to a multiple of dp; every row keeps its
// index in the whole batch as its sampling key), and every rank returns the whole generated batch
// with the prompts' non-tensor fields. Equal to one rank generating the whole batch.
data::Batch generate_on_ranks(const model::CausalLM& model, const data::Batch& prompts,
                              const rollout::SamplingParams& params, std::uint64_t seed,
                              const dist::Communicator& dp);

}  // namespace verlpp::trainer
