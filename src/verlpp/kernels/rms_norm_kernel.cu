#include <algorithm>
#include <cstdint>

#include "verlpp/kernels/rms_norm_kernel.h"
#include "verlpp/kernels/rms_norm_row.cuh"

namespace verlpp::kernels {

namespace {

using rms_row::Group;
using rms_row::inverse_rms;
using rms_row::kGroup;
using rms_row::load_group;
using rms_row::scaled_normed;
using rms_row::store_group;
using rms_row::warp_sum;

constexpr int kForwardWarps = 4;
constexpr int kBackwardWarps = 4;
// Enough resident warps to hide each row's dependent loads (an H200: 132 SMs x 64 warps / 4 per
// block = 2112 blocks); 512 left SMs three-quarters idle on the short rows of the gated norm.
constexpr int kMaxBackwardBlocks = 2048;

__device__ float sigmoid(float v) { return 1.f / (1.f + expf(-v)); }

// The row the norm reads: x, or with a residual s = T(x + residual) stored to p.sum (each lane
// reads back only the groups it wrote).
template <typename T>
__device__ const T* input_row(const RmsNormParams& p, int64_t row, int lane) {
  const T* x = static_cast<const T*>(p.x) + row * p.x_stride;
  if (p.residual == nullptr) return x;
  const T* residual = static_cast<const T*>(p.residual) + row * p.residual_stride;
  T* sum = static_cast<T*>(p.sum) + row * p.dim;
  for (int first = lane * kGroup; first < p.dim; first += 32 * kGroup) {
    Group s = load_group(x, first, p.dim);
    const Group r = load_group(residual, first, p.dim);
#pragma unroll
    for (int j = 0; j < kGroup; ++j) s.v[j] += r.v[j];
    store_group(sum, first, p.dim, s);
  }
  return sum;
}

// y's group from `first` given r (the formulas of rms_norm_kernel.h).
template <typename T>
__device__ Group normed_group(const RmsNormParams& p, const T* x, const T* z, int first, float r) {
  const T* w = static_cast<const T*>(p.weight);
  const Group gx = load_group(x, first, p.dim), gw = load_group(w, first, p.dim);
  Group y;
  if (p.kind == RmsNormKind::scaled) {
#pragma unroll
    for (int j = 0; j < kGroup; ++j) y.v[j] = scaled_normed(gx.v[j], gw.v[j], r, w);
    return y;
  }
  if (p.kind == RmsNormKind::zero_centered) {
#pragma unroll
    for (int j = 0; j < kGroup; ++j) y.v[j] = gx.v[j] * r * (gw.v[j] + 1.f);
    return y;
  }
  const Group gz = load_group(z, first, p.dim);
#pragma unroll
  for (int j = 0; j < kGroup; ++j) {
    const float scaled = round_to(gw.v[j] * round_to(gx.v[j] * r, w), w);
    y.v[j] = scaled * (gz.v[j] / (1.f + expf(-gz.v[j])));
  }
  return y;
}

template <typename T>
__global__ void forward_kernel(RmsNormParams p) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kForwardWarps + threadIdx.x / 32;
  if (row >= p.rows) return;
  const int lane = threadIdx.x % 32;
  const T* x = input_row<T>(p, row, lane);
  const T* z = p.z == nullptr ? nullptr : static_cast<const T*>(p.z) + row * p.z_stride;
  T* y = static_cast<T*>(p.y) + row * p.dim;
  const float r = inverse_rms(x, p.dim, p.eps, lane);
  for (int first = lane * kGroup; first < p.dim; first += 32 * kGroup) {
    store_group(y, first, p.dim, normed_group<T>(p, x, z, first, r));
  }
}

// d loss / d n_i (g), row i's term of dw and (gated) d loss / d z_i.
struct ElementGrad {
  float g = 0.f, dw = 0.f, dz = 0.f;
};

template <typename T>
__device__ ElementGrad element_grad(RmsNormKind kind, const T* w, const T* dy, const T* z, int i,
                                    float n) {
  const float dyi = load(dy, i), wi = load(w, i);
  if (kind == RmsNormKind::scaled) {
    return {round_to(dyi * wi, w), round_to(dyi * round_to(n, w), w), 0.f};
  }
  if (kind == RmsNormKind::zero_centered) return {dyi * (wi + 1.f), dyi * n, 0.f};
  const float zi = load(z, i), s = sigmoid(zi);
  const float normed = round_to(n, w), gp = round_to(dyi * zi * s, w);
  const float scaled = round_to(wi * normed, w);
  return {round_to(gp * wi, w), round_to(gp * normed, w),
          dyi * scaled * s * (1.f + zi * (1.f - s))};
}

// One row's backward; adds its dw terms to `dw` (this warp's H sums in shared memory).
template <typename T>
__device__ void backward_row(const RmsNormParams& p, int64_t row, int lane, float* dw) {
  const T* x = static_cast<const T*>(p.x) + row * p.x_stride;
  const T* w = static_cast<const T*>(p.weight);
  const T* dy = static_cast<const T*>(p.dy) + row * p.dim;
  const T* z = p.z == nullptr ? nullptr : static_cast<const T*>(p.z) + row * p.z_stride;
  T* dz = p.z == nullptr ? nullptr : static_cast<T*>(p.dz) + row * p.dim;
  const float r = inverse_rms(x, p.dim, p.eps, lane);
  float dot = 0.f;
  for (int i = lane; i < p.dim; i += 32) {
    const float n = load(x, i) * r;
    const ElementGrad e = element_grad(p.kind, w, dy, z, i, n);
    dot = fmaf(e.g, n, dot);
    dw[i] += e.dw;
    if (dz != nullptr) store(dz, i, e.dz);
  }
  const float mean_dot = warp_sum(dot) / static_cast<float>(p.dim);
  T* dx = static_cast<T*>(p.dx) + row * p.dim;
  for (int i = lane; i < p.dim; i += 32) {
    const float n = load(x, i) * r;
    store(dx, i, r * (element_grad(p.kind, w, dy, z, i, n).g - n * mean_dot));
  }
}

template <typename T>
__global__ void backward_kernel(RmsNormParams p) {
  extern __shared__ float sums[];  // [kBackwardWarps, H]
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float* dw = sums + warp * p.dim;
  for (int i = lane; i < p.dim; i += 32) dw[i] = 0.f;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * kBackwardWarps;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * kBackwardWarps + warp; row < p.rows;
       row += warps) {
    backward_row<T>(p, row, lane, dw);
  }
  __syncthreads();
  float* out = p.dweight_partials + static_cast<int64_t>(blockIdx.x) * p.dim;
  for (int i = threadIdx.x; i < p.dim; i += blockDim.x) {
    float total = 0.f;
    for (int k = 0; k < kBackwardWarps; ++k) total += sums[k * p.dim + i];
    out[i] = total;
  }
}

template <typename T>
cudaError_t launch(const RmsNormParams& p, bool backward, cudaStream_t stream) {
  if (!backward) {
    const auto blocks = static_cast<unsigned>((p.rows + kForwardWarps - 1) / kForwardWarps);
    forward_kernel<T><<<blocks, kForwardWarps * 32, 0, stream>>>(p);
    return cudaGetLastError();
  }
  const size_t shared = sizeof(float) * kBackwardWarps * static_cast<size_t>(p.dim);
  const cudaError_t status = cudaFuncSetAttribute(
      backward_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
  if (status != cudaSuccess) return status;
  const auto blocks = static_cast<unsigned>(rms_norm_backward_blocks(p.rows));
  backward_kernel<T><<<blocks, kBackwardWarps * 32, shared, stream>>>(p);
  return cudaGetLastError();
}

cudaError_t dispatch(const RmsNormParams& p, bool backward, cudaStream_t stream) {
  if (p.rows == 0 || p.dim == 0) return cudaSuccess;
  return with_element_type(
      p.dtype, [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, backward, stream); });
}

}  // namespace

int rms_norm_backward_blocks(int64_t rows) {
  return static_cast<int>(
      std::clamp<int64_t>((rows + kBackwardWarps - 1) / kBackwardWarps, 1, kMaxBackwardBlocks));
}

cudaError_t launch_rms_norm_forward(const RmsNormParams& p, cudaStream_t stream) {
  return dispatch(p, false, stream);
}

cudaError_t launch_rms_norm_backward(const RmsNormParams& p, cudaStream_t stream) {
  return dispatch(p, true, stream);
}

}  // namespace verlpp::kernels
