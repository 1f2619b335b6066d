// Loss aggregation (verl: core_algos.py agg_loss; verl.md §3.4), selected by
// actor.loss_agg_mode / critic.loss_agg_mode.
//
// loss_mat and loss_mask: [batch, response_length] (mask bool or 0/1). Returns a 0-dim tensor in
// loss_mat's dtype, differentiable with respect to loss_mat.
//
// Global-batch normalisation: verl divides each micro-batch's partial sum by a global count (all
// micro-batches of the mini-batch, all data-parallel ranks) and multiplies by dp_size, because
// FSDP/DDP average gradients over ranks; summing the micro-batch gradients then gives a
// statistic of the whole global mini-batch. GlobalBatchInfo carries those counts; left empty,
// the local counts of this call are used (valid only with dp_size == 1, as in verl).
//   token-mean               masked_sum(L, m) / batch_num_tokens * dp_size
//   token-sum                masked_sum(L, m) * dp_size
//   seq-mean-token-sum       seq_i = sum_t L*m; masked_sum(seq, [sum_t m > 0]) / global_batch_size
//                            * dp_size
//   seq-mean-token-mean      seq_i = sum_t L*m / (sum_t m + 1e-8); then as above
//   seq-mean-token-sum-norm  seq-mean-token-sum / loss_scale_factor (unset: response_length)
// Local counts: batch_num_tokens = m.sum(); global_batch_size = number of non-empty rows.
// Deviation: when that local count is 0 (every row empty) the sum is 0 too and verlpp returns 0
// where verl's 0/0 gives NaN.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace verlpp::algo {

struct GlobalBatchInfo {
  int64_t dp_size = 1;
  // Valid response tokens of the global mini-batch (all micro-batches, summed over DP ranks).
  std::optional<double> batch_num_tokens;
  // Sequences of the global mini-batch: ppo_mini_batch_size * rollout.n.
  std::optional<double> global_batch_size;
  // actor.loss_scale_factor (seq-mean-token-sum-norm only); unset: the response length.
  std::optional<double> loss_scale_factor;
};

at::Tensor agg_loss(const at::Tensor& loss_mat, const at::Tensor& loss_mask,
                    const std::string& loss_agg_mode, const GlobalBatchInfo& info = {});

// token-mean, token-sum, seq-mean-token-sum, seq-mean-token-mean, seq-mean-token-sum-norm.
const std::vector<std::string>& loss_agg_mode_names();

// Throws verlpp::Error, naming `key` and the valid modes, for an unknown mode.
void validate_loss_agg_mode(const std::string& mode, const std::string& key);

}  // namespace verlpp::algo
