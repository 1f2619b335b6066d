// The element types of verlpp's kernels that take model-dtype tensors, and (in CUDA code) loads,
// stores and roundings of them through fp32.
#pragma once

namespace verlpp::kernels {

enum class ElementType { f32, bf16, f16 };

}  // namespace verlpp::kernels

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace verlpp::kernels {

__device__ inline float load(const float* p, int64_t i) { return p[i]; }
__device__ inline float load(const __nv_bfloat16* p, int64_t i) { return __bfloat162float(p[i]); }
__device__ inline float load(const __half* p, int64_t i) { return __half2float(p[i]); }
// v rounded to the element type of the (unused) pointer, back in fp32.
__device__ inline float round_to(float v, const float*) { return v; }
__device__ inline float round_to(float v, const __nv_bfloat16*) {
  return __bfloat162float(__float2bfloat16(v));
}
__device__ inline float round_to(float v, const __half*) { return __half2float(__float2half(v)); }
__device__ inline void store(float* p, int64_t i, float v) { p[i] = v; }
__device__ inline void store(__nv_bfloat16* p, int64_t i, float v) { p[i] = __float2bfloat16(v); }
__device__ inline void store(__half* p, int64_t i, float v) { p[i] = __float2half(v); }

// A CUDA element type as a value, for a launcher's template argument (ElementOf<decltype(tag)>).
template <typename T>
struct ElementTag {
  using type = T;
};
template <typename Tag>
using ElementOf = typename Tag::type;

// launch(ElementTag<T>{}) with T the CUDA type of `type` (float, __nv_bfloat16, __half): the
// dtype switch of every kernel's launcher, written once:
//   return with_element_type(p.dtype, [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p);
//   });
template <typename Launch>
decltype(auto) with_element_type(ElementType type, Launch&& launch) {
  switch (type) {
    case ElementType::bf16:
      return launch(ElementTag<__nv_bfloat16>{});
    case ElementType::f16:
      return launch(ElementTag<__half>{});
    default:
      return launch(ElementTag<float>{});
  }
}

}  // namespace verlpp::kernels
#endif
