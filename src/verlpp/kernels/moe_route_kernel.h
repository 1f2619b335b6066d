// The router of a sparse mixture-of-experts block after its logits GEMM (transformers'
// Qwen3MoeTopKRouter; models.md §1), in one pass: the CUDA core, with raw pointers and no LibTorch
// (the binding is moe_route.h). ATen runs it as six kernels (softmax, two of top-k, sum,
// division, cast) around [T, k] intermediates.
//
// Per token, over its E logits l (model dtype T), in fp32:
//   p = softmax(l): max m, then s = sum_i exp(l_i - m), then p_i = exp(l_i - m) / s. Lane j of the
//       token's warp sums elements j, j + 32, ... in order, then the 32 lane sums are added by a
//       butterfly (xor 16, 8, 4, 2, 1): the order of ATen's warp softmax (softmax_warp_forward,
//       dim <= 1024), so p is bit-identical to at::softmax(l, -1, fp32) where that kernel runs;
//   the k largest p, largest first; equal p in expert order (the lower expert is taken first); a
//   NaN p ranks above every number (as at::topk ranks it) and keeps an infinite or NaN weight;
//   normalize: w_j = p_j / (((p_1 + p_2) + ...) + p_k), the sum in slot order; else w_j = p_j;
//   weights = T(w), experts = the chosen experts' indices.
// One warp per token, E <= 1024, 1 <= k <= min(E, 32).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

constexpr int64_t kMoeRouteMaxExperts = 1024;
constexpr int64_t kMoeRouteMaxTopK = 32;

struct MoeRouteParams {
  const void* logits = nullptr;  // [T, E], contiguous
  void* weights = nullptr;       // [T, k], contiguous, the element type of logits
  int64_t* experts = nullptr;    // [T, k], contiguous
  int64_t tokens = 0;            // T
  int num_experts = 0;           // E
  int top_k = 0;                 // k
  bool normalize = false;        // norm_topk_prob
  ElementType dtype = ElementType::bf16;
};

cudaError_t launch_moe_route(const MoeRouteParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
