#include "verlpp/kernels/l2_normalize_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kWarpsPerBlock = 8;

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The row of warp `row`: its first element, or nullptr past the last row.
template <typename T>
__device__ const T* row_of(const L2NormalizeParams& p, int64_t row) {
  if (row >= p.tokens * p.heads) return nullptr;
  return static_cast<const T*>(p.x) + (row / p.heads) * p.stride_t + (row % p.heads) * p.stride_h;
}

template <typename T>
__global__ void forward_kernel(L2NormalizeParams p) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const T* x = row_of<T>(p, row);
  if (x == nullptr) return;
  float partial = 0.f;
  for (int i = lane; i < p.dim; i += 32) {
    const float xi = load(x, i);
    partial = fmaf(xi, xi, partial);
  }
  const float inverse = rsqrtf(warp_sum(partial) + 1e-6f);
  float* y = p.y + row * p.dim;
  for (int i = lane; i < p.dim; i += 32) y[i] = load(x, i) * inverse * p.scale;
}

template <typename T>
__global__ void backward_kernel(L2NormalizeParams p) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const T* x = row_of<T>(p, row);
  if (x == nullptr) return;
  const float* dy = p.dy + row * p.dim;
  float squares = 0.f, dot = 0.f;
  for (int i = lane; i < p.dim; i += 32) {
    const float xi = load(x, i);
    squares = fmaf(xi, xi, squares);
    dot = fmaf(xi, dy[i], dot);
  }
  const float r = rsqrtf(warp_sum(squares) + 1e-6f);
  const float r3_dot = r * r * r * warp_sum(dot);
  T* dx = static_cast<T*>(p.dx) + row * p.dim;
  for (int i = lane; i < p.dim; i += 32) {
    store(dx, i, p.scale * (r * dy[i] - r3_dot * load(x, i)));
  }
}

template <typename T>
cudaError_t launch(const L2NormalizeParams& p, bool backward, cudaStream_t stream) {
  const int64_t rows = p.tokens * p.heads;
  const auto blocks = static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  if (backward) {
    backward_kernel<T><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p);
  } else {
    forward_kernel<T><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(p);
  }
  return cudaGetLastError();
}

cudaError_t dispatch(const L2NormalizeParams& p, bool backward, cudaStream_t stream) {
  if (p.tokens == 0 || p.heads == 0 || p.dim == 0) return cudaSuccess;
  return with_element_type(
      p.dtype, [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, backward, stream); });
}

}  // namespace

cudaError_t launch_l2_normalize_forward(const L2NormalizeParams& p, cudaStream_t stream) {
  return dispatch(p, false, stream);
}

cudaError_t launch_l2_normalize_backward(const L2NormalizeParams& p, cudaStream_t stream) {
  return dispatch(p, true, stream);
}

}  // namespace verlpp::kernels
