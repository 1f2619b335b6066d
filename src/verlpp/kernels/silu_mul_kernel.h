// SwiGLU's elementwise half, silu(gate) * up (transformers' LlamaMLP: act_fn(gate_proj(x)) *
// up_proj(x)), in one pass: the CUDA core, with raw pointers and no LibTorch (the binding is
// silu_mul.h). ATen runs it as two kernels and writes and reads silu(gate) in between.
//
// Per element, with T the element type and the operations ATen's own CUDA kernels do in fp32:
//   y = T(T(g_f / (1 + exp(-g_f))) * u_f)
// (ATen's silu, then its multiply), so y is bit-identical to at::silu(gate) * up when this file
// is compiled without fast math (expf and the division IEEE, as in PyTorch's build). y is
// contiguous [n]; gate and up are too when cols is 0, else rows of `cols` elements `in_stride`
// elements apart (the two halves of a fused [rows, 2 I] gate/up product, in_stride 2 I: the
// experts of a MoE block). 16-byte vectors when the three pointers are 16-byte aligned and cols
// and in_stride are whole vectors.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

struct SiluMulParams {
  const void* gate = nullptr;  // [n]
  const void* up = nullptr;    // [n]
  void* y = nullptr;           // [n]
  int64_t n = 0;
  int64_t cols = 0;       // elements of a row of gate and up; 0: both contiguous [n]
  int64_t in_stride = 0;  // with cols: elements from one row of gate (and up) to the next
  ElementType dtype = ElementType::bf16;
};

cudaError_t launch_silu_mul(const SiluMulParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
