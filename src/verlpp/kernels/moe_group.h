// LibTorch binding of the MoE grouping kernel (moe_group_kernel.h: the grouping it computes):
// checks the tensors and launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::kernels {

// The most (token, slot) pairs the kernel is used for: one block walks them, so past a few of its
// chunks ATen's multi-block sort is faster (a decode step of up to 1,024 rows at top 8 fits).
constexpr int64_t kMoeGroupMaxPairs = 8192;

// True when this build compiled the CUDA kernels and they take experts: a CUDA int64 [T, k]
// tensor of at most kMoeGroupMaxPairs elements, 1 <= num_experts <= 1024.
bool can_moe_group(const at::Tensor& experts, int64_t num_experts);

struct ExpertGroups {
  at::Tensor offsets;       // [E] int32: the end row of each expert's group
  at::Tensor row_of_pair;   // [T k] int64: the grouped row of pair t k + j
  at::Tensor source_token;  // [T k] int64: the token of each grouped row
};

// The pairs of experts grouped by expert, stable. Experts outside [0, num_experts) are the
// caller's error (not checked: the check would wait for the device; the kernel gives them row -1
// and leaves source_token 0 for the rows they leave). Forward only. Throws verlpp::Error when
// can_moe_group is false.
ExpertGroups moe_group(const at::Tensor& experts, int64_t num_experts);

}  // namespace verlpp::kernels
