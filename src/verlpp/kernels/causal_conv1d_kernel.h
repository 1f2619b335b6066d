// The short causal convolution of Gated DeltaNet (models.md §3: depthwise, K taps, SiLU, each
// packed sequence starting from an empty window) forward and backward: the CUDA core, with raw
// pointers and no LibTorch (the binding is causal_conv1d.h).
//
// For token t (at position offsets[t] within its sequence) and channel c:
//   pre[t, c] = sum_{j < K, offsets[t] >= K-1-j} w[c, j] x[t - (K-1) + j, c]   (fp32 sum, rounded
//               to the element type once, as nn.Conv1d in that dtype)
//   out[t, c] = silu(pre[t, c])                                               (fp32, rounded once)
// Backward, with dpre = dout * silu'(pre) in fp32:
//   dx[t, c] = sum_j w[c, j] dpre[t + (K-1) - j, c]  over the taps whose token is in t's sequence
//   dw[c, j] = sum_t dpre[t, c] x[t - (K-1) + j, c]  (per block of tokens into `dw_partial`; the
//              binding sums the blocks)
// Element types: bf16, fp16 or fp32 (x, w, out, dout, dx share one); dw_partial is fp32.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

struct CausalConv1dParams {
  const void* x;           // [tokens, channels], contiguous
  const void* weight;      // [channels, taps]
  const int64_t* offsets;  // [tokens]: each token's index within its sequence
  void* out;               // forward: [tokens, channels]
  const void* dout;        // backward: [tokens, channels]
  void* dx;                // backward: [tokens, channels]
  float* dw_partial;       // backward: [token_blocks, channels, taps] fp32
  int64_t tokens = 0;
  int channels = 0, taps = 0;
  ElementType dtype = ElementType::f32;
};

// The decode step: one new column per sequence, its window of the taps - 1 columns before it kept
// in a state slot, updated in place (moved on by one column).
struct CausalConv1dUpdateParams {
  const void* x;         // [num_seqs, channels]: the new columns
  const void* weight;    // [channels, taps]
  void* windows;         // [slots, channels, taps - 1]: read, then moved on, at rows slots[n]
  const int64_t* slots;  // [num_seqs], distinct
  void* out;             // [num_seqs, channels]
  int num_seqs = 0, channels = 0, taps = 0;
  ElementType dtype = ElementType::f32;
};

// Tokens per block of the weight gradient (dw_partial has ceil(tokens / this) rows).
constexpr int kCausalConvTokensPerBlock = 64;

// True for the tap counts the kernels are built for: 1 <= taps <= 4.
bool causal_conv1d_supported(int taps);

cudaError_t launch_causal_conv1d_forward(const CausalConv1dParams& params, cudaStream_t stream);
cudaError_t launch_causal_conv1d_backward(const CausalConv1dParams& params, cudaStream_t stream);
cudaError_t launch_causal_conv1d_update(const CausalConv1dUpdateParams& params,
                                        cudaStream_t stream);

}  // namespace verlpp::kernels
