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

#include "verlpp/kernels/element_type.h"

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

// The decode step's inputs from Gated DeltaNet's projections (models.md §3.2), one kernel instead
// of ATen's casts, l2 norms, softplus and sigmoid, with the same roundings: per sequence n and
// value head h (key head h / (value_heads / key_heads)), from conv [n] = [q | k | v] channels
// (key_heads * dk, key_heads * dk, value_heads * dv) after the convolution, in the element type:
//   q = l2norm(fp32(q)) * scale, k = l2norm(fp32(k))  (l2norm(x) = x * rsqrt(sum(x^2) + 1e-6) in
//       fp32, as transformers 5 normalises after the cast)
//   v = fp32(v),  g = -exp(A_log) * softplus(a + dt_bias) in fp32,  beta = sigmoid(b) rounded
// to the element type, then fp32. Outputs contiguous fp32, the layout delta_rule_decode takes.
struct DeltaRuleDecodeInputsParams {
  const void* conv;     // [num_seqs, 2 key_heads dk + value_heads dv]
  const void* a;        // [num_seqs, value_heads]
  const void* b;        // [num_seqs, value_heads]
  const void* A_log;    // [value_heads]
  const void* dt_bias;  // [value_heads]
  float* q;             // [num_seqs, value_heads, dk]
  float* k;             // [num_seqs, value_heads, dk]
  float* v;             // [num_seqs, value_heads, dv]
  float* g;             // [num_seqs, value_heads]
  float* beta;          // [num_seqs, value_heads]
  int num_seqs = 0, key_heads = 0, value_heads = 0, dk = 0, dv = 0;
  float scale = 1.0f;
  ElementType dtype = ElementType::f32;
};

cudaError_t launch_delta_rule_decode_inputs(const DeltaRuleDecodeInputsParams& params,
                                            cudaStream_t stream);

// True for the shapes the kernel is built for: 1 <= dk <= 256, 1 <= dv <= 1024.
bool delta_rule_decode_supported(int dk, int dv);

// Launches the kernel on `stream`; returns the launch's error (cudaSuccess when none).
cudaError_t launch_delta_rule_decode(const DeltaRuleDecodeParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
