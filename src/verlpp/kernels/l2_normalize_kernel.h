// The l2 norm of Gated DeltaNet's queries and keys (models.md §3.1; fla's and transformers' l2norm)
// with the cast to fp32 and the query scale folded in, forward and backward: the CUDA core, with
// raw pointers and no LibTorch (the binding is l2_normalize.h).
//
// Per row x (d elements of the element type): y = l2norm(x) * scale, all in fp32 from x's values,
// where l2norm(x) = x * rsqrt(sum(x^2) + 1e-6) (transformers 5 casts q and k to fp32 before the
// norm, "to match the FLA library"; bench/results/qwen3_5_bf16_gap).
// Backward, in fp32 from the unrounded r = rsqrt(sum(x^2) + 1e-6):
//   dx = scale * (r dy - r^3 x (x . dy)), rounded once to the element type.
// Rows are (t, h) of a [T, H, d] tensor with strides (stride_t, stride_h, 1); y, dy and dx are
// contiguous [T, H, d]. One warp per row.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

struct L2NormalizeParams {
  const void* x;    // [T, H, d], strides (stride_t, stride_h, 1)
  float* y;         // forward: [T, H, d] fp32
  const float* dy;  // backward: [T, H, d] fp32
  void* dx;         // backward: [T, H, d], x's element type
  int64_t tokens = 0, stride_t = 0, stride_h = 0;
  int heads = 0, dim = 0;
  float scale = 1.0f;
  ElementType dtype = ElementType::f32;
};

cudaError_t launch_l2_normalize_forward(const L2NormalizeParams& params, cudaStream_t stream);
cudaError_t launch_l2_normalize_backward(const L2NormalizeParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
