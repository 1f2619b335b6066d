// The output of a sparse mixture-of-experts block from its experts' grouped rows: each token's k
// expert outputs weighted by its routing weights and summed, in one pass: the CUDA core, with raw
// pointers and no LibTorch (the binding is moe_combine.h). ATen runs it as a gather back to
// (token, slot) order and a batched [1, k] x [k, H] GEMM.
//
// Per token t and element h, in fp32, slot by slot in order (fused multiply-adds):
//   a_0 = 0,  a_{j+1} = fma(w[t, j], y[row_of_pair[t k + j], h], a_j),  out[t, h] = T(a_k)
// rounded once to the element type T of y, w and out (for bf16 and fp16 each product is exact in
// fp32, so a_k is also the fp32 sum of the fp32 products in slot order). A slot whose row is
// negative adds nothing. 16-byte vectors when H is a whole number of them and y and out are
// 16-byte aligned.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

struct MoeCombineParams {
  const void* expert_out = nullptr;      // y [rows, H], contiguous, grouped by expert
  const void* weights = nullptr;         // w [T, k], contiguous
  const int64_t* row_of_pair = nullptr;  // [T k]: the row of y of pair t k + j
  void* out = nullptr;                   // [T, H], contiguous
  int64_t tokens = 0;                    // T
  int64_t hidden = 0;                    // H
  int top_k = 0;                         // k
  ElementType dtype = ElementType::bf16;
};

cudaError_t launch_moe_combine(const MoeCombineParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
