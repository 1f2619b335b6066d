// The (token, slot) pairs of a sparse mixture-of-experts block grouped by expert, for the grouped
// expert GEMMs: the CUDA core, with raw pointers and no LibTorch (the binding is moe_group.h).
// ATen runs it as a sort, a histogram, a scan, an inverse permutation and their fills (ten
// kernels); here one block does it.
//
// Pair q = token * k + slot chose expert experts[q]. The pairs are grouped by expert, each
// expert's pairs in pair order (a stable counting sort: the same grouping as a stable sort of
// experts, unique, so every run gives the same bits):
//   offsets[e]         = number of pairs whose expert is <= e (int32: at::_grouped_mm's offs)
//   row_of_pair[q]     = the grouped row of pair q
//   source_token[row]  = the token of the pair at grouped row `row` (q / k)
// One block of kMoeGroupThreads threads walks the pairs in chunks of that many: each warp ranks its
// lanes' pairs among equal experts (__match_any_sync), a shared table per warp and expert gives
// the warps before it. E <= kMoeGroupMaxExperts; a pair whose expert lies outside [0, E) gets
// row -1 and no row of its own.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace verlpp::kernels {

constexpr int kMoeGroupThreads = 512;
constexpr int64_t kMoeGroupMaxExperts = 1024;

struct MoeGroupParams {
  const int64_t* experts = nullptr;  // [P], P = T k
  int32_t* offsets = nullptr;        // [E]
  int64_t* row_of_pair = nullptr;    // [P]
  int64_t* source_token = nullptr;   // [P]
  int64_t pairs = 0;                 // P
  int top_k = 0;                     // k
  int num_experts = 0;               // E
};

cudaError_t launch_moe_group(const MoeGroupParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
