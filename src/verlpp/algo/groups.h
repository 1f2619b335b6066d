// Prompt groups for the group-relative estimators (GRPO, RLOO, OPO, ...).
//
// verl groups the n responses of a prompt by non_tensor_batch["uid"], a UUID string per prompt
// (verl.md §3.0). verlpp's estimators take the group index as an int64 tensor [batch] in which
// equal values mean "same prompt"; the values themselves and their order do not matter, and the
// members of a group need not be adjacent. group_index_from_uids turns the trainer's uid strings
// into such a tensor.
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace verlpp::algo {

// int64 [uids.size()] on the CPU: 0 for the first distinct uid, 1 for the next new one, ...
at::Tensor group_index_from_uids(const std::vector<std::string>& uids);

struct Groups {
  at::Tensor inverse;  // int64 [batch]: each sample's group number in 0..count-1
  at::Tensor sizes;    // int64 [batch]: the size of each sample's group
  int64_t count = 0;   // number of groups
};

// Groups of `index` (int64 [batch]). Throws verlpp::Error naming `fn` when index is missing, not
// int64, not 1-D or not of length `batch`.
Groups make_groups(const at::Tensor& index, int64_t batch, const std::string& fn);

// For x [batch]: the sum of x over each sample's group, per sample ([batch]).
at::Tensor group_sum(const at::Tensor& x, const Groups& groups);

// Per-sample group mean of x [batch]; singleton groups get 0 (verl's convention).
at::Tensor group_mean(const at::Tensor& x, const Groups& groups);

// Per-sample unbiased (n-1) group standard deviation of x [batch], as torch.std; singleton groups
// get 1 (verl's convention).
at::Tensor group_std(const at::Tensor& x, const Groups& groups);

}  // namespace verlpp::algo
