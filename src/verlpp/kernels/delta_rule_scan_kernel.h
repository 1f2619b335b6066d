// The scan over chunks of the chunked gated delta rule (model/layers/delta_rule_chunked.h), forward
// and backward in one kernel: the CUDA core, with raw pointers and no LibTorch (the binding is
// delta_rule_scan.h).
//
// Per sequence and head, over the sequence's chunks j (in order, or reversed), with a running
// [dk, dv] fp32 matrix S:
//   before_j = S;  X_j = base_j + sign1 * A1_j S;  S <- decay_j S + add_j + sign2 * A2_j^T X_j
// with A1_j, A2_j [C, dk], base_j, X_j [C, dv], add_j [dk, dv] (optional), decay_j a scalar.
//   forward:  A1 = W, A2 = K ⊙ e^{gamma_last - gamma}, base = U, sign1 = -1, sign2 = +1, no add:
//             before_j = h_j (the state entering chunk j), X_j = V'_j, S ends as the final state.
//   backward: reversed, A1 = K ⊙ e^{gamma_last - gamma}, A2 = W, base = (QK^T ⊙ D)^T dO,
//             add = (Q ⊙ e^gamma)^T dO, sign1 = +1, sign2 = -1, S from zero: before_j =
//             dL/dh_{j+1}, X_j = dL/dV'_j, S ends as dL/dh_0.
// Chunk j of sequence s (s indexing the layout's longest-first order) is chunk step_offsets[j] + s
// of the chunked tensors (model::DeltaRuleLayout). One block per (32 value columns, head,
// sequence): S's columns, A1_j, A2_j and X_j's columns in shared memory; each chunk is two small
// products (C x dk x 32 and dk x C x 32 multiply-adds) in fp32, the state never leaving the block.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace verlpp::kernels {

struct DeltaRuleScanParams {
  const float* base;            // [chunks, heads, C, dv], contiguous
  const float* a1;              // [chunks, heads, C, dk]
  const float* a2;              // [chunks, heads, C, dk]
  const float* add;             // [chunks, heads, dk, dv] or nullptr
  const float* decay;           // [chunks, heads]
  float* state;                 // [seqs, heads, dk, dv]: S's start, overwritten with its end
  float* before;                // [chunks, heads, dk, dv]
  float* x;                     // [chunks, heads, C, dv]
  const int64_t* step_offsets;  // [steps]: first chunk of step j
  const int64_t* chunk_counts;  // [seqs]: chunks of each sequence (non-increasing)
  int seqs = 0, heads = 0, chunk = 0, dk = 0, dv = 0;
  float sign1 = -1.0f, sign2 = 1.0f;
  bool reverse = false;
};

// True for the shapes the kernel is built for: 1 <= chunk <= 64, 1 <= dk <= 256, dv >= 1.
bool delta_rule_scan_supported(int chunk, int dk, int dv);

// Launches the kernel on `stream`; returns the launch's error (cudaSuccess when none).
cudaError_t launch_delta_rule_scan(const DeltaRuleScanParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
