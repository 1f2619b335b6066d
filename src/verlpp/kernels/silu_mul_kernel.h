// SwiGLU's elementwise half, silu(gate) * up (transformers' LlamaMLP: act_fn(gate_proj(x)) *
// up_proj(x)), in one pass: the CUDA core, with raw pointers and no LibTorch (the binding is
// silu_mul.h). ATen runs it as two kernels and writes and reads silu(gate) in between.
//
// Per element, with T the element type and the operations ATen's own CUDA kernels do in fp32:
//   y = T(T(g_f / (1 + exp(-g_f))) * u_f)
// (ATen's silu, then its multiply), so y is bit-identical to at::silu(gate) * up when this file
// is compiled without fast math (expf and the division IEEE, as in PyTorch's build). gate, up and
// y are contiguous [n]; 16-byte vectors when all three are 16-byte aligned.
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
  ElementType dtype = ElementType::bf16;
};

cudaError_t launch_silu_mul(const SiluMulParams& params, cudaStream_t stream);

}  // namespace verlpp::kernels
