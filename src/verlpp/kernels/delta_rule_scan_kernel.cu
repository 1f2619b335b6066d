#include <cstdint>

#include "verlpp/kernels/delta_rule_scan_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kColumns = 32;  // value columns per block: one per lane
constexpr int kWarps = 8;     // warp w takes rows w, w + 8, w + 16, ... of each product
constexpr int kThreads = kColumns * kWarps;
constexpr int kMaxChunk = 64, kMaxDk = 256;

size_t shared_bytes(int chunk, int dk) {
  return (static_cast<size_t>(dk) * kColumns + 2 * static_cast<size_t>(chunk) * dk +
          static_cast<size_t>(chunk) * kColumns) *
         sizeof(float);
}

// Copies n floats (n % 4 == 0 and both 16-byte aligned when `vector`) into shared memory.
__device__ void load(float* dst, const float* src, int n, bool vector) {
  if (vector) {
    const auto* s4 = reinterpret_cast<const float4*>(src);
    auto* d4 = reinterpret_cast<float4*>(dst);
    for (int i = threadIdx.x; i < n / 4; i += kThreads) d4[i] = s4[i];
  } else {
    for (int i = threadIdx.x; i < n; i += kThreads) dst[i] = src[i];
  }
}

__global__ void __launch_bounds__(kThreads) delta_rule_scan_kernel(DeltaRuleScanParams p) {
  extern __shared__ float shared[];
  const int dk = p.dk, dv = p.dv, C = p.chunk;
  float* S = shared;              // [dk][32]
  float* A1 = S + dk * kColumns;  // [C][dk]
  float* A2 = A1 + C * dk;        // [C][dk]
  float* X = A2 + C * dk;         // [C][32]
  const int lane = threadIdx.x % kColumns, warp = threadIdx.x / kColumns;
  const int col = blockIdx.x * kColumns + lane, h = blockIdx.y, s = blockIdx.z;
  const bool live = col < dv;
  const int64_t H = p.heads;
  const int64_t matrix = static_cast<int64_t>(dk) * dv;
  float* state = p.state + (s * H + h) * matrix;
  for (int r = warp; r < dk; r += kWarps) S[r * kColumns + lane] = live ? state[r * dv + col] : 0.f;
  const bool vector = (C * dk) % 4 == 0 && reinterpret_cast<uintptr_t>(p.a1) % 16 == 0 &&
                      reinterpret_cast<uintptr_t>(p.a2) % 16 == 0;
  const auto n = static_cast<int>(p.chunk_counts[s]);
  for (int i = 0; i < n; ++i) {
    const int j = p.reverse ? n - 1 - i : i;
    const int64_t ch = (p.step_offsets[j] + s) * H + h;
    load(A1, p.a1 + ch * C * dk, C * dk, vector);
    load(A2, p.a2 + ch * C * dk, C * dk, vector);
    __syncthreads();  // A1, A2 loaded; S of the previous chunk written
    float* before = p.before + ch * matrix;
    const float* base = p.base + ch * C * dv;
    float* x = p.x + ch * C * dv;
    for (int r = warp; r < dk; r += kWarps) {
      if (live) before[r * dv + col] = S[r * kColumns + lane];
    }
    for (int r = warp; r < C; r += kWarps) {
      float acc = 0.f;
      for (int q = 0; q < dk; ++q) acc = fmaf(A1[r * dk + q], S[q * kColumns + lane], acc);
      const float value = (live ? base[r * dv + col] : 0.f) + p.sign1 * acc;
      X[r * kColumns + lane] = value;
      if (live) x[r * dv + col] = value;
    }
    __syncthreads();  // X complete; every read of S for X done
    const float decay = p.decay[ch];
    const float* add = p.add != nullptr ? p.add + ch * matrix : nullptr;
    for (int q = warp; q < dk; q += kWarps) {
      float acc = 0.f;
      for (int r = 0; r < C; ++r) acc = fmaf(A2[r * dk + q], X[r * kColumns + lane], acc);
      float value = decay * S[q * kColumns + lane] + p.sign2 * acc;
      if (add != nullptr && live) value += add[q * dv + col];
      S[q * kColumns + lane] = value;
    }
    __syncthreads();  // A2 and X read before the next chunk overwrites them
  }
  for (int r = warp; r < dk; r += kWarps) {
    if (live) state[r * dv + col] = S[r * kColumns + lane];
  }
}

}  // namespace

bool delta_rule_scan_supported(int chunk, int dk, int dv) {
  return chunk >= 1 && chunk <= kMaxChunk && dk >= 1 && dk <= kMaxDk && dv >= 1;
}

cudaError_t launch_delta_rule_scan(const DeltaRuleScanParams& p, cudaStream_t stream) {
  if (p.seqs == 0 || p.heads == 0) return cudaSuccess;
  const size_t bytes = shared_bytes(p.chunk, p.dk);
  const cudaError_t set = cudaFuncSetAttribute(
      delta_rule_scan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (set != cudaSuccess) return set;
  const dim3 grid(static_cast<unsigned>((p.dv + kColumns - 1) / kColumns),
                  static_cast<unsigned>(p.heads), static_cast<unsigned>(p.seqs));
  delta_rule_scan_kernel<<<grid, kThreads, bytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace verlpp::kernels
