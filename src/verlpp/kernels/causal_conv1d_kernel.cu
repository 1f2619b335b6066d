#include "verlpp/kernels/causal_conv1d_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kMaxTaps = 8;
constexpr int kChannels = 128;  // channels per block, one per thread
constexpr int kTokens = kCausalConvTokensPerBlock;

__device__ float sigmoid(float v) { return 1.f / (1.f + expf(-v)); }

// pre[t, c] of the header, rounded to T.
template <typename T>
__device__ float conv_at(const T* x, const T* w, const int64_t* offsets, int64_t t, int c,
                         int channels, int taps) {
  float acc = 0.f;
  const int64_t position = offsets[t];
  for (int j = 0; j < taps; ++j) {
    const int back = taps - 1 - j;
    if (position >= back) {
      acc = fmaf(load(w, static_cast<int64_t>(c) * taps + j), load(x, (t - back) * channels + c),
                 acc);
    }
  }
  return round_to(acc, x);
}

// One thread per (token, channel): blocks of 128 channels x 64 tokens.
template <typename T>
__global__ void forward_kernel(CausalConv1dParams p) {
  const int c = blockIdx.x * kChannels + threadIdx.x;
  if (c >= p.channels) return;
  const auto* x = static_cast<const T*>(p.x);
  const auto* w = static_cast<const T*>(p.weight);
  auto* out = static_cast<T*>(p.out);
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kTokens;
  for (int64_t t = first; t < first + kTokens && t < p.tokens; ++t) {
    const float pre = conv_at(x, w, p.offsets, t, c, p.channels, p.taps);
    store(out, t * p.channels + c, pre * sigmoid(pre));
  }
}

// One thread per channel of a block of 64 tokens: dx for the block (dpre of each token and of the
// taps - 1 tokens after it, recomputed from x) and the block's share of dw.
template <typename T>
__global__ void backward_kernel(CausalConv1dParams p) {
  const int c = blockIdx.x * kChannels + threadIdx.x;
  if (c >= p.channels) return;
  const auto* x = static_cast<const T*>(p.x);
  const auto* w = static_cast<const T*>(p.weight);
  const auto* dout = static_cast<const T*>(p.dout);
  auto* dx = static_cast<T*>(p.dx);
  const int K = p.taps;
  float weight[kMaxTaps], dw[kMaxTaps] = {};
  for (int j = 0; j < K; ++j) weight[j] = load(w, static_cast<int64_t>(c) * K + j);
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kTokens;
  const int64_t last = first + kTokens < p.tokens ? first + kTokens : p.tokens;
  // dpre of token t, 0 past the end.
  const auto dpre_at = [&](int64_t t) {
    if (t >= p.tokens) return 0.f;
    const float pre = conv_at(x, w, p.offsets, t, c, p.channels, K);
    const float s = sigmoid(pre);
    return load(dout, t * p.channels + c) * s * (1.f + pre * (1.f - s));
  };
  for (int64_t t = first; t < last; ++t) {
    const float d = dpre_at(t);
    const int64_t position = p.offsets[t];
    for (int j = 0; j < K; ++j) {
      const int back = K - 1 - j;
      if (position >= back) dw[j] = fmaf(d, load(x, (t - back) * p.channels + c), dw[j]);
    }
    // dx[t] collects dpre of the tokens t + back whose window reaches back to t.
    float g = 0.f;
    for (int back = 0; back < K; ++back) {
      const int64_t u = t + back;
      if (u < p.tokens && p.offsets[u] >= back) {
        g = fmaf(weight[K - 1 - back], back == 0 ? d : dpre_at(u), g);
      }
    }
    store(dx, t * p.channels + c, g);
  }
  float* partial = p.dw_partial + (static_cast<int64_t>(blockIdx.y) * p.channels + c) * K;
  for (int j = 0; j < K; ++j) partial[j] = dw[j];
}

// One thread per (sequence, channel).
template <typename T>
__global__ void update_kernel(CausalConv1dUpdateParams p) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<int64_t>(p.num_seqs) * p.channels) return;
  const int64_t n = i / p.channels;
  const int c = static_cast<int>(i % p.channels);
  const int K = p.taps;
  const auto* w = static_cast<const T*>(p.weight);
  auto* window = static_cast<T*>(p.windows) + (p.slots[n] * p.channels + c) * (K - 1);
  const T column = static_cast<const T*>(p.x)[i];
  float acc = 0.f;
  for (int j = 0; j < K - 1; ++j) {
    acc = fmaf(load(w, static_cast<int64_t>(c) * K + j), load(window, j), acc);
  }
  acc = fmaf(load(w, static_cast<int64_t>(c) * K + K - 1), load(&column, 0), acc);
  for (int j = 0; j + 1 < K - 1; ++j) window[j] = window[j + 1];
  if (K > 1) window[K - 2] = column;
  const float pre = round_to(acc, window);
  store(static_cast<T*>(p.out), i, pre * sigmoid(pre));
}

template <template <typename> class Launch, typename Params>
cudaError_t dispatch(const Params& p, cudaStream_t stream) {
  switch (p.dtype) {
    case ElementType::bf16:
      return Launch<__nv_bfloat16>::run(p, stream);
    case ElementType::f16:
      return Launch<__half>::run(p, stream);
    default:
      return Launch<float>::run(p, stream);
  }
}

dim3 grid_of(const CausalConv1dParams& p) {
  return dim3(static_cast<unsigned>((p.channels + kChannels - 1) / kChannels),
              static_cast<unsigned>((p.tokens + kTokens - 1) / kTokens));
}

template <typename T>
struct Forward {
  static cudaError_t run(const CausalConv1dParams& p, cudaStream_t stream) {
    forward_kernel<T><<<grid_of(p), kChannels, 0, stream>>>(p);
    return cudaGetLastError();
  }
};

template <typename T>
struct Update {
  static cudaError_t run(const CausalConv1dUpdateParams& p, cudaStream_t stream) {
    const int64_t n = static_cast<int64_t>(p.num_seqs) * p.channels;
    update_kernel<T><<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p);
    return cudaGetLastError();
  }
};

template <typename T>
struct Backward {
  static cudaError_t run(const CausalConv1dParams& p, cudaStream_t stream) {
    backward_kernel<T><<<grid_of(p), kChannels, 0, stream>>>(p);
    return cudaGetLastError();
  }
};

}  // namespace

cudaError_t launch_causal_conv1d_update(const CausalConv1dUpdateParams& p, cudaStream_t stream) {
  if (p.num_seqs == 0 || p.channels == 0) return cudaSuccess;
  return dispatch<Update>(p, stream);
}

bool causal_conv1d_supported(int taps) { return taps >= 1 && taps <= kMaxTaps; }

cudaError_t launch_causal_conv1d_forward(const CausalConv1dParams& p, cudaStream_t stream) {
  if (p.tokens == 0 || p.channels == 0) return cudaSuccess;
  return dispatch<Forward>(p, stream);
}

cudaError_t launch_causal_conv1d_backward(const CausalConv1dParams& p, cudaStream_t stream) {
  if (p.tokens == 0 || p.channels == 0) return cudaSuccess;
  return dispatch<Backward>(p, stream);
}

}  // namespace verlpp::kernels
