#include "verlpp/kernels/causal_conv1d_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kMaxTaps = 4;
constexpr int kChannels = 128;  // channels per block, one per thread
constexpr int kTokens = kCausalConvTokensPerBlock;

__device__ float sigmoid(float v) { return 1.f / (1.f + expf(-v)); }

// The taps right-aligned in kMaxTaps registers: tap[m] multiplies x[t - (kMaxTaps - 1 - m)]
// (zero for the taps a shorter kernel does not have), so that every register index is a constant.
template <typename T>
__device__ void load_taps(const T* w, int c, int K, float* tap) {
#pragma unroll
  for (int m = 0; m < kMaxTaps; ++m) {
    const int back = kMaxTaps - 1 - m;
    tap[m] = back < K ? load(w, static_cast<int64_t>(c) * K + K - 1 - back) : 0.f;
  }
}

// pre of the token at `position` within its sequence, from window[m] = x[t - (kMaxTaps - 1 - m)].
__device__ float conv_sum(const float* tap, const float* window, int64_t position) {
  float acc = 0.f;
#pragma unroll
  for (int m = 0; m < kMaxTaps; ++m) {
    if (position >= kMaxTaps - 1 - m) acc = fmaf(tap[m], window[m], acc);
  }
  return acc;
}

// x[t, c] as fp32, 0 before the first token.
template <typename T>
__device__ float x_at(const T* x, int64_t t, int c, int channels) {
  return t >= 0 ? load(x, t * channels + c) : 0.f;
}

// One thread per channel of a block of 64 tokens, walking the tokens with the window of x in
// registers (one load of x per token).
template <typename T>
__global__ void forward_kernel(CausalConv1dParams p) {
  const int c = blockIdx.x * kChannels + threadIdx.x;
  if (c >= p.channels) return;
  const auto* x = static_cast<const T*>(p.x);
  auto* out = static_cast<T*>(p.out);
  float tap[kMaxTaps], window[kMaxTaps];
  load_taps(static_cast<const T*>(p.weight), c, p.taps, tap);
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kTokens;
  const int64_t last = first + kTokens < p.tokens ? first + kTokens : p.tokens;
#pragma unroll
  for (int m = 0; m < kMaxTaps; ++m) window[m] = x_at(x, first - kMaxTaps + m, c, p.channels);
  for (int64_t t = first; t < last; ++t) {
#pragma unroll
    for (int m = 0; m + 1 < kMaxTaps; ++m) window[m] = window[m + 1];
    window[kMaxTaps - 1] = load(x, t * p.channels + c);
    const float pre = round_to(conv_sum(tap, window, p.offsets[t]), x);
    store(out, t * p.channels + c, pre * sigmoid(pre));
  }
}

// One thread per channel of a block of 64 tokens, walking the tokens backwards with the window of x
// before the token and the dpre (and positions) of the taps - 1 tokens after it in registers:
// dx for the block and the block's share of dw.
template <typename T>
__global__ void backward_kernel(CausalConv1dParams p) {
  const int c = blockIdx.x * kChannels + threadIdx.x;
  if (c >= p.channels) return;
  const auto* x = static_cast<const T*>(p.x);
  const auto* dout = static_cast<const T*>(p.dout);
  auto* dx = static_cast<T*>(p.dx);
  const int K = p.taps;
  float tap[kMaxTaps], window[kMaxTaps], dw[kMaxTaps] = {};
  float ahead[kMaxTaps] = {};    // ahead[b] = dpre[t + b]
  int64_t reach[kMaxTaps] = {};  // reach[b] = the position of token t + b (0 past the end)
  load_taps(static_cast<const T*>(p.weight), c, K, tap);
  const int64_t first = static_cast<int64_t>(blockIdx.y) * kTokens;
  const int64_t last = first + kTokens < p.tokens ? first + kTokens : p.tokens;
  // dpre of token u from its window (window[m] = x[u - (kMaxTaps - 1 - m)]).
  const auto dpre_of = [&](int64_t u, const float* win) {
    const float pre = round_to(conv_sum(tap, win, p.offsets[u]), x);
    const float sg = sigmoid(pre);
    return load(dout, u * p.channels + c) * sg * (1.f + pre * (1.f - sg));
  };
  // The tokens after the block that reach into it.
#pragma unroll
  for (int b = 1; b < kMaxTaps; ++b) {
    const int64_t u = last - 1 + b;
    if (b < K && u < p.tokens) {
      float win[kMaxTaps];
#pragma unroll
      for (int m = 0; m < kMaxTaps; ++m) win[m] = x_at(x, u - (kMaxTaps - 1 - m), c, p.channels);
      ahead[b] = dpre_of(u, win);
      reach[b] = p.offsets[u];
    }
  }
#pragma unroll
  for (int m = 0; m < kMaxTaps; ++m) {
    window[m] = x_at(x, last - 1 - (kMaxTaps - 1 - m), c, p.channels);
  }
  for (int64_t t = last - 1; t >= first; --t) {
    const int64_t position = p.offsets[t];
    ahead[0] = dpre_of(t, window);
    reach[0] = position;
    float g = 0.f;
#pragma unroll
    for (int b = 0; b < kMaxTaps; ++b) {
      if (reach[b] >= b) g = fmaf(tap[kMaxTaps - 1 - b], ahead[b], g);
    }
    store(dx, t * p.channels + c, g);
#pragma unroll
    for (int m = 0; m < kMaxTaps; ++m) {
      if (position >= kMaxTaps - 1 - m) dw[m] = fmaf(ahead[0], window[m], dw[m]);
    }
#pragma unroll
    for (int b = kMaxTaps - 1; b > 0; --b) {
      ahead[b] = ahead[b - 1];
      reach[b] = reach[b - 1];
    }
#pragma unroll
    for (int m = kMaxTaps - 1; m > 0; --m) window[m] = window[m - 1];
    window[0] = x_at(x, t - kMaxTaps, c, p.channels);
  }
  float* partial = p.dw_partial + (static_cast<int64_t>(blockIdx.y) * p.channels + c) * K;
  for (int j = 0; j < K; ++j) partial[j] = dw[kMaxTaps - K + j];
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
  return with_element_type(
      p.dtype, [&](auto tag) { return Launch<ElementOf<decltype(tag)>>::run(p, stream); });
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
