#include <cmath>

#include "verlpp/kernels/delta_rule_decode_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kColumns = 32;  // value columns per block: one per lane, 128-byte rows of S
constexpr int kWarps = 8;     // row groups per block: warp w holds rows w, w + 8, w + 16, ...
constexpr int kThreads = kColumns * kWarps;

// Sums each column's partial over the warps: `partial` from every thread, the total returned to
// every thread of that column. `scratch`: kWarps * kColumns floats of shared memory.
__device__ float sum_over_warps(float partial, float* scratch) {
  const int lane = threadIdx.x % kColumns, warp = threadIdx.x / kColumns;
  scratch[warp * kColumns + lane] = partial;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) total += scratch[w * kColumns + lane];
  __syncthreads();  // scratch is reused by the next sum
  return total;
}

// One block per (column tile, head, sequence); thread (warp w, lane c) holds the state entries of
// column tile * 32 + c in rows w + 8 r, r < kRows, in registers: every entry of S is read once and
// written once, by 32 lanes reading one 128-byte row segment together (coalesced), with kRows
// independent loads in flight per thread.
template <int kRows>
__global__ void __launch_bounds__(kThreads) delta_rule_decode_kernel(DeltaRuleDecodeParams p) {
  extern __shared__ float shared[];  // q, k (dk each), then the warp-sum scratch
  float* qs = shared;
  float* ks = shared + p.dk;
  float* scratch = shared + 2 * p.dk;
  const int tile = blockIdx.x, h = blockIdx.y, n = blockIdx.z;
  const int lane = threadIdx.x % kColumns, warp = threadIdx.x / kColumns;
  const int64_t row = static_cast<int64_t>(n) * p.heads + h;
  for (int i = threadIdx.x; i < p.dk; i += kThreads) {
    qs[i] = p.q[row * p.dk + i];
    ks[i] = p.k[row * p.dk + i];
  }
  __syncthreads();
  const int j = tile * kColumns + lane;
  const bool column = j < p.dv;
  const float decay = expf(p.g[row]);
  float* state = p.state + (p.slots[n] * p.heads + h) * static_cast<int64_t>(p.dk) * p.dv;
  float s[kRows];
  float memory = 0.0f;  // this thread's share of (S^T k)_j after the decay
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int i = warp + r * kWarps;
    s[r] = (column && i < p.dk) ? state[static_cast<int64_t>(i) * p.dv + j] * decay : 0.0f;
    if (i < p.dk) memory = fmaf(s[r], ks[i], memory);
  }
  memory = sum_over_warps(memory, scratch);
  const float delta = column ? (p.v[row * p.dv + j] - memory) * p.beta[row] : 0.0f;
  float o = 0.0f;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int i = warp + r * kWarps;
    if (i < p.dk) {
      s[r] = fmaf(ks[i], delta, s[r]);
      o = fmaf(s[r], qs[i], o);
      if (column) state[static_cast<int64_t>(i) * p.dv + j] = s[r];
    }
  }
  o = sum_over_warps(o, scratch);
  if (column && warp == 0) p.out[row * p.dv + j] = o;
}

constexpr int kInputThreads = 128;

// Sum of `v` over the block (kInputThreads threads); `scratch`: kInputThreads / 32 floats.
__device__ float block_sum(float v, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float total = 0.f;
  for (int w = 0; w < kInputThreads / 32; ++w) total += scratch[w];
  __syncthreads();
  return total;
}

// x * rsqrt(sum(x^2) + 1e-6) over n elements of `x` into `out` (times `scale`), in fp32 from x's
// values (transformers 5 normalises q and k after their cast to fp32).
template <typename T>
__device__ void l2_normalize(const T* x, int n, float scale, float* out, float* scratch) {
  float partial = 0.f;
  for (int i = threadIdx.x; i < n; i += kInputThreads) {
    const float xi = load(x, i);
    partial = fmaf(xi, xi, partial);
  }
  const float inverse = rsqrtf(block_sum(partial, scratch) + 1e-6f);
  for (int i = threadIdx.x; i < n; i += kInputThreads) out[i] = load(x, i) * inverse * scale;
}

// One block per (value head, sequence).
template <typename T>
__global__ void __launch_bounds__(kInputThreads)
    decode_inputs_kernel(DeltaRuleDecodeInputsParams p) {
  __shared__ float scratch[kInputThreads / 32];
  const int h = blockIdx.x, n = blockIdx.y;
  const int key_head = h / (p.value_heads / p.key_heads);
  const int64_t key_dim = static_cast<int64_t>(p.key_heads) * p.dk;
  const auto* row = static_cast<const T*>(p.conv) + n * (2 * key_dim + p.value_heads * p.dv);
  const int64_t out = static_cast<int64_t>(n) * p.value_heads + h;
  l2_normalize(row + key_head * p.dk, p.dk, p.scale, p.q + out * p.dk, scratch);
  l2_normalize(row + key_dim + key_head * p.dk, p.dk, 1.f, p.k + out * p.dk, scratch);
  const T* v = row + 2 * key_dim + static_cast<int64_t>(h) * p.dv;
  for (int i = threadIdx.x; i < p.dv; i += kInputThreads) p.v[out * p.dv + i] = load(v, i);
  if (threadIdx.x == 0) {
    const auto* a = static_cast<const T*>(p.a);
    const auto* b = static_cast<const T*>(p.b);
    const float x = load(a, out) + load(static_cast<const T*>(p.dt_bias), h);
    const float softplus = x > 20.f ? x : log1pf(expf(x));  // ATen's threshold 20
    p.g[out] = -expf(load(static_cast<const T*>(p.A_log), h)) * softplus;
    p.beta[out] = round_to(1.f / (1.f + expf(-load(b, out))), b);
  }
}

template <typename T>
cudaError_t launch_inputs(const DeltaRuleDecodeInputsParams& p, cudaStream_t stream) {
  decode_inputs_kernel<T><<<dim3(p.value_heads, p.num_seqs), kInputThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

template <int kRows>
cudaError_t launch(const DeltaRuleDecodeParams& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.dv + kColumns - 1) / kColumns),
                  static_cast<unsigned>(p.heads), static_cast<unsigned>(p.num_seqs));
  const size_t shared_bytes = (2 * static_cast<size_t>(p.dk) + kWarps * kColumns) * sizeof(float);
  delta_rule_decode_kernel<kRows><<<grid, kThreads, shared_bytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_delta_rule_decode_inputs(const DeltaRuleDecodeInputsParams& p,
                                            cudaStream_t stream) {
  if (p.num_seqs == 0 || p.value_heads == 0) return cudaSuccess;
  return with_element_type(
      p.dtype, [&](auto tag) { return launch_inputs<ElementOf<decltype(tag)>>(p, stream); });
}

bool delta_rule_decode_supported(int dk, int dv) {
  return dk >= 1 && dk <= 32 * kWarps && dv >= 1 && dv <= 1024;
}

cudaError_t launch_delta_rule_decode(const DeltaRuleDecodeParams& p, cudaStream_t stream) {
  if (!delta_rule_decode_supported(p.dk, p.dv) || p.num_seqs > 65535 || p.heads > 65535) {
    return cudaErrorInvalidValue;
  }
  if (p.num_seqs == 0 || p.heads == 0) return cudaSuccess;
  const int rows = (p.dk + kWarps - 1) / kWarps;  // rows per thread
  if (rows <= 2) return launch<2>(p, stream);
  if (rows <= 4) return launch<4>(p, stream);
  if (rows <= 8) return launch<8>(p, stream);
  if (rows <= 16) return launch<16>(p, stream);
  return launch<32>(p, stream);
}

}  // namespace verlpp::kernels
