// One decode step of the gated delta rule (Gated DeltaNet; Yang, Kautz, Hatamizadeh, "Gated Delta
// Networks", arXiv:2412.06464; the math of model/layers/delta_rule.h) for N sequences whose fp32
// states live in slots of a larger state tensor, updated in place: the CUDA core, with raw pointers
// and no LibTorch (the binding is delta_rule_decode.h).
//
// Per sequence n and value head h, with S = state[slots[n], h] ([dk, dv]):
//   S <- e^{g} S;  delta = beta (v - S^T k);  S <- S + k delta^T;  o = S^T q
// q and k arrive l2-normalised (q also scaled by dk^-1/2), everything fp32. One thread block per
// (32 value columns, head, sequence): 8 warps split the dk rows, each lane one column, each thread
// its rows of that column in registers, so the state is read once and written once per step (the
// ATen composition reads and writes it about nine times, counting the slot gather and scatter),
// in coalesced 128-byte row segments; the two sums over rows (S^T k and S^T q) are finished over
// the warps in shared memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace verlpp::kernels {

struct DeltaRuleDecodeParams {
  const float* q;        // [num_seqs, heads, dk], contiguous
  const float* k;        // [num_seqs, heads, dk]
  const float* v;        // [num_seqs, heads, dv]
  const float* g;        // [num_seqs, heads] log decay (<= 0)
  const float* beta;     // [num_seqs, heads]
  float* state;          // [slots, heads, dk, dv], updated in place at rows slots[n]
  const int64_t* slots;  // [num_seqs] distinct state rows
  float* out;            // [num_seqs, heads, dv]
  int num_seqs = 0, heads = 0, dk = 0, dv = 0;
};

// True for the shapes the kernel is built for: 1 <= dk <= 256, 1 <= dv <= 1024.
bool delta_rule_decode_supported(int dk, int dv);

// Launches the kernel on `stream`; returns the launch's error (cudaSuccess when none).
cudaError_t launch_delta_rule_decode(const DeltaRuleDecodeParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
