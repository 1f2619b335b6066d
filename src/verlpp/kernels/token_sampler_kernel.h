// Next-token sampling of a decode step in one kernel (verl's default sampling: temperature, no
// top_k or top_p): the CUDA core, with raw pointers and no LibTorch (the binding is
// token_sampler.h). It replaces rollout::sample_tokens' chain of ATen kernels (fp32 copies, the
// temperature, softmax, log_softmax, cumsum, searchsorted, gather: about 1 ms of a 12 ms
// Qwen3-0.6B decode step at 256 rows).
//
// Row r of logits z [rows, vocab] (any row stride, last dimension contiguous), x = fp32(z) * 1/T:
//   m = max x, S = sum exp(x - m), logprobs[r] = x[token] - (m + log S)   (log_softmax(x)[token]);
//   token = the first i whose cumulative sum of exp(x - m), in vocabulary order, exceeds
//   min(u_r * total, the largest float below total), total = the whole cumulative sum
// (inverse-CDF sampling as rollout/sampling.h defines it). One block per row, one read of the row
// for the sums: the row is cut into 32 chunks, each warp sums its chunk as {max, sum of exp(x -
// max)} and the chunks' sums relative to m give the cumulative sums at chunk ends; only the
// chunk holding the draw is read again, scanned by the whole block in tiles of 4,096 entries. The
// sums are the kernel's own fp32 sums, so a draw that falls within rounding of a boundary may pick
// the neighbouring token that ATen's cumsum would not (and when rounding leaves the chunk's own
// scan short of the draw, its last entry of positive weight is taken). A row whose sums are NaN
// (non-finite weights) gets token vocab - 1 and a NaN log-prob, as rollout/sampling.cpp does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

// The largest vocabulary the kernel takes.
constexpr int64_t kTokenSamplerMaxVocab = int64_t{4096} * 2048;

struct TokenSamplerParams {
  const void* logits;      // [rows, vocab], row stride row_stride elements
  const double* uniforms;  // [rows], each in [0, 1)
  int64_t* tokens;         // [rows]
  float* logprobs;         // [rows]
  int64_t rows = 0, vocab = 0, row_stride = 0;
  float inverse_temperature = 1.0f;
  ElementType dtype = ElementType::f32;
};

cudaError_t launch_token_sampler(const TokenSamplerParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
