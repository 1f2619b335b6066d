// The RMSNorms of verlpp's models (models.md §2 table; transformers' LlamaRMSNorm,
// Qwen3_5RMSNorm and Qwen3_5RMSNormGated) over rows of H elements, forward and backward: the CUDA
// core, with raw pointers and no LibTorch (the binding is rms_norm.h). ATen spends five to eight
// kernels on each (cast, pow, mean, rsqrt, products, casts); here one pass reads a row once.
//
// Per row x (H elements of the element type T), r = rsqrt(mean(x_f^2) + eps) in fp32, n = x_f r
// (every rounding transformers' torch path makes):
//   scaled:       y = T(w_f T(n))
//   zero-centred: y = T(n (1 + w_f))
//   gated:        y = T(T(w T(n)) silu(z_f))
// The forward of the scaled and zero-centred norms may first add a residual row: the row
// normalised is then s = T(x_f + residual_f), written to `sum` (bit-identical to ATen's add
// followed by this norm: vLLM's fused_add_rms_norm).
// Backward from dy (T), in fp32 with the forward's roundings where ATen's autograd makes them:
//   scaled:       g = T(dy_f w_f);                    dw = sum_rows T(dy_f T(n))
//   zero-centred: g = dy_f (1 + w_f);                 dw = sum_rows dy_f n
//   gated:        gp = T(dy_f silu(z_f)); g = T(gp w); dw = sum_rows T(gp T(n));
//                 dz = T(dy_f T(w T(n)) silu'(z_f)),  silu'(z) = s (1 + z (1 - s)), s = sigmoid(z)
//   all:          dx = T(r (g - n mean(g n)))
// Rows may be strided (row i of x starts at x + i x_stride, of residual at residual + i
// residual_stride); y, sum, dy, dx and dz are contiguous [R, H]. One warp per row; lane l owns
// the groups of 8 consecutive elements l, l + 32, ... (16-byte loads and stores where a group is
// aligned, element by element where not) and sums their squares in element order before the
// warp's sum, so the sum of squares has the same order in every kind, with or without the
// residual, whatever the row's alignment and the rows beside it; the backward runs
// `rms_norm_backward_blocks` blocks (grid-stride) and writes each block's dw sum to
// dweight_partials [blocks, H] fp32 (summed by the caller), so dw is the same bits every run. The
// backward needs 16 H bytes of shared memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"
#include "verlpp/kernels/rms_norm_kind.h"

namespace verlpp::kernels {

struct RmsNormParams {
  const void* x = nullptr;            // [R, H], row stride x_stride
  const void* residual = nullptr;     // forward, not gated: [R, H], row stride residual_stride
  void* sum = nullptr;                // with residual: [R, H]
  const void* z = nullptr;            // gated: [R, H], row stride z_stride
  const void* weight = nullptr;       // [H]
  void* y = nullptr;                  // forward: [R, H]
  const void* dy = nullptr;           // backward: [R, H]
  void* dx = nullptr;                 // backward: [R, H]
  void* dz = nullptr;                 // backward, gated: [R, H]
  float* dweight_partials = nullptr;  // backward: [rms_norm_backward_blocks(R), H]
  int64_t rows = 0, x_stride = 0, residual_stride = 0, z_stride = 0;
  int dim = 0;
  float eps = 1e-6f;
  RmsNormKind kind = RmsNormKind::scaled;
  ElementType dtype = ElementType::bf16;
};

// Blocks of the backward for `rows` rows (at most a few per SM, at least one).
int rms_norm_backward_blocks(int64_t rows);

cudaError_t launch_rms_norm_forward(const RmsNormParams& params, cudaStream_t stream);
cudaError_t launch_rms_norm_backward(const RmsNormParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
