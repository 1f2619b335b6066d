// The per-chunk terms of the chunked gated delta rule (model/layers/delta_rule_chunked.h) in one
// kernel: the CUDA core, with raw pointers and no LibTorch (the binding is
// delta_rule_chunk_terms.h).
//
// Per chunk n and head h, over the chunk's C rows (pad rows: zeros, g = beta = 0), from q, k [C,
// dk], v [C, dv], g, beta [C] (models.md §3.1; Yang et al., arXiv:2412.06464, §3):
//   gamma = cumsum(g) in float64;  egamma_r = e^{gamma_r};  tail_r = e^{gamma_{C-1} - gamma_r};
//   last_decay = e^{gamma_{C-1}};  D_rs = e^{gamma_r - gamma_s} for s <= r, else 0 (each
//   exponential taken in float64 and rounded to fp32 once);
//   KK = K K^T, QK = Q K^T, P = QK ⊙ D, A = strictly-lower((beta_r KK_rs) D_rs),
//   T = (I + A)^{-1} (by 16 x 16 blocks: diagonal blocks by forward substitution, then block
//   rows T_ij = -T_ii sum_{k=j}^{i-1} A_ik T_kj), U = (T diag(beta)) V,
//   W = (T diag(beta ⊙ egamma)) K, Qd = Q ⊙ egamma (rows), Kd = K ⊙ tail (rows).
// One block of 256 threads per (chunk, head): K, Q (then V) and A, T in shared memory; for the
// C x C matrices a 16 x 16 thread grid where thread (y, x) owns rows y + 16 i and columns x + 16 j;
// for U and W each warp owns 8 rows and each lane 4 columns of a 128-column tile. fp32 products
// with fp32 accumulation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace verlpp::kernels {

struct DeltaRuleChunkTermsParams {
  const float* q;     // [chunks, heads, C, dk], contiguous
  const float* k;     // [chunks, heads, C, dk]
  const float* v;     // [chunks, heads, C, dv]
  const float* g;     // [chunks, heads, C]
  const float* beta;  // [chunks, heads, C]
  float* egamma;      // [chunks, heads, C]
  float* tail;        // [chunks, heads, C]
  float* last_decay;  // [chunks, heads]
  float* qd;          // [chunks, heads, C, dk]
  float* kd;          // [chunks, heads, C, dk]
  float* p;           // [chunks, heads, C, C]
  float* u;           // [chunks, heads, C, dv]
  float* w;           // [chunks, heads, C, dk]
  // The backward's extra terms, each [chunks, heads, C, C]; all four nullptr when not wanted.
  float* decay = nullptr;
  float* kk = nullptr;
  float* qk = nullptr;
  float* inverse = nullptr;
  int64_t chunks = 0;
  int heads = 0, chunk = 0, dk = 0, dv = 0;
};

// True for the shapes the kernel is built for: 1 <= chunk <= 64, 1 <= dk, dv <= 256.
bool delta_rule_chunk_terms_supported(int chunk, int dk, int dv);

// Launches the kernel on `stream`; returns the launch's error (cudaSuccess when none).
cudaError_t launch_delta_rule_chunk_terms(const DeltaRuleChunkTermsParams& params,
                                          cudaStream_t stream);

}  // namespace verlpp::kernels
