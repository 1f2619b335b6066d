// One row of verlpp's RMSNorm in a warp (rms_norm_kernel.h): the lanes' element groups, the fp32
// sum of squares in its fixed order and the scaled norm's roundings. CUDA code only; shared by the
// kernels that normalise rows (rms_norm_kernel.cu, rope_cache_write_kernel.cu) so that every one
// of them gives the same bits for the same row.
#pragma once

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels::rms_row {

// A lane owns groups of kGroup consecutive elements of a row, groups lane, lane + 32, ...: 16
// bytes of bf16/fp16 (one load), 32 of fp32 (two).
constexpr int kGroup = 8;

__device__ inline float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

struct Group {
  float v[kGroup];
};

// True when the whole group from `first` lies in the row and starts on a 16-byte boundary.
template <typename T>
__device__ bool vector_group(const T* row, int first, int dim) {
  return first + kGroup <= dim && reinterpret_cast<uintptr_t>(row + first) % 16 == 0;
}

// Elements [first, first + kGroup) of a row in fp32 (0 past dim): 16-byte loads when
// vector_group, else one element at a time (the same values either way).
template <typename T>
__device__ Group load_group(const T* row, int first, int dim) {
  constexpr int kPerLoad = 16 / static_cast<int>(sizeof(T));
  Group g;
  if (vector_group(row, first, dim)) {
#pragma unroll
    for (int a = 0; a < kGroup; a += kPerLoad) {
      const uint4 raw = *reinterpret_cast<const uint4*>(row + first + a);
      const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
      for (int j = 0; j < kPerLoad; ++j) g.v[a + j] = load(e, j);
    }
    return g;
  }
#pragma unroll
  for (int j = 0; j < kGroup; ++j) g.v[j] = first + j < dim ? load(row, first + j) : 0.f;
  return g;
}

// Stores g's elements below dim at row[first ...], rounded to T.
template <typename T>
__device__ void store_group(T* row, int first, int dim, const Group& g) {
  constexpr int kPerLoad = 16 / static_cast<int>(sizeof(T));
  if (vector_group(row, first, dim)) {
#pragma unroll
    for (int a = 0; a < kGroup; a += kPerLoad) {
      uint4 raw;
      T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
      for (int j = 0; j < kPerLoad; ++j) store(e, j, g.v[a + j]);
      *reinterpret_cast<uint4*>(row + first + a) = raw;
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < kGroup; ++j) {
    if (first + j < dim) store(row, first + j, g.v[j]);
  }
}

// r = rsqrt(mean(x^2) + eps) of one row, in every lane: each lane sums the squares of its groups
// in element order, then the warp's 32 sums are added (warp_sum).
template <typename T>
__device__ float inverse_rms(const T* x, int dim, float eps, int lane) {
  float squares = 0.f;
  for (int first = lane * kGroup; first < dim; first += 32 * kGroup) {
    const Group g = load_group(x, first, dim);
#pragma unroll
    for (int j = 0; j < kGroup; ++j) squares = fmaf(g.v[j], g.v[j], squares);
  }
  return rsqrtf(warp_sum(squares) / static_cast<float>(dim) + eps);
}

// The scaled norm's element (rms_norm_kernel.h): w_f * T(x_f r), to be rounded to T by its store.
template <typename T>
__device__ float scaled_normed(float x, float w, float r, const T* type) {
  return w * round_to(x * r, type);
}

}  // namespace verlpp::kernels::rms_row
