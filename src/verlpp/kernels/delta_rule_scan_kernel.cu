#include <cstdint>

#include "verlpp/kernels/delta_rule_scan_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kColumns = 32;  // value columns per block: one per lane
constexpr int kWarps = 8;
constexpr int kThreads = kColumns * kWarps;
constexpr int kMaxChunk = 64, kMaxDk = 256;
constexpr int kRowsPerWarp = kMaxChunk / kWarps;  // rows of X per warp
constexpr int kMaxKeysPerWarp = kMaxDk / kWarps;  // rows of S per warp

// Rows of dk floats are kept in shared memory with a stride of dk rounded up to 32 (zero padded),
// so that each warp owns a multiple of 4 rows of S and reads A1, A2 as float4.
__host__ __device__ int padded(int dk) { return (dk + 31) / 32 * 32; }

size_t shared_bytes(int dk) {
  const auto P = static_cast<size_t>(padded(dk));
  return (P * kColumns + 2 * kMaxChunk * P + kMaxChunk * kColumns) * sizeof(float);
}

// Copies the [C, dk] row-major matrix at src into shared memory rows of stride P (columns beyond
// dk stay as they are: zero).
__device__ void load_rows(float* dst, const float* src, int C, int dk, int P) {
  if (dk % 4 == 0 && reinterpret_cast<uintptr_t>(src) % 16 == 0) {
    const int n = C * dk / 4;
    for (int i = threadIdx.x; i < n; i += kThreads) {
      const int e = 4 * i;
      *reinterpret_cast<float4*>(dst + (e / dk) * P + e % dk) =
          reinterpret_cast<const float4*>(src)[i];
    }
  } else {
    for (int e = threadIdx.x; e < C * dk; e += kThreads) dst[(e / dk) * P + e % dk] = src[e];
  }
}

// Each product is register-blocked: in X = base + sign1 A1 S a warp takes 8 rows of X (one column
// per lane) and reads A1 four keys at a time as a broadcast float4; in S <- decay S + add +
// sign2 A2^T X a warp takes P / 8 consecutive rows of S and reads them from A2 as float4.
__global__ void __launch_bounds__(kThreads) delta_rule_scan_kernel(DeltaRuleScanParams p) {
  extern __shared__ float4 shared4[];
  float* shared = reinterpret_cast<float*>(shared4);
  const int dk = p.dk, dv = p.dv, C = p.chunk, P = padded(dk);
  float* S = shared;               // [P][32]
  float* A1 = S + P * kColumns;    // [64][P]
  float* A2 = A1 + kMaxChunk * P;  // [64][P]
  float* X = A2 + kMaxChunk * P;   // [64][32]
  const int lane = threadIdx.x % kColumns, warp = threadIdx.x / kColumns;
  const int col = blockIdx.x * kColumns + lane, h = blockIdx.y, s = blockIdx.z;
  const bool live = col < dv;
  const int64_t H = p.heads;
  const int64_t matrix = static_cast<int64_t>(dk) * dv;
  const int keys = P / kWarps;  // rows of S per warp, a multiple of 4
  for (int i = threadIdx.x; i < 2 * kMaxChunk * P; i += kThreads) A1[i] = 0.f;
  float* state = p.state + (s * H + h) * matrix;
  for (int q = warp; q < P; q += kWarps) {
    S[q * kColumns + lane] = (live && q < dk) ? state[static_cast<int64_t>(q) * dv + col] : 0.f;
  }
  const auto n = static_cast<int>(p.chunk_counts[s]);
  for (int i = 0; i < n; ++i) {
    const int j = p.reverse ? n - 1 - i : i;
    const int64_t ch = (p.step_offsets[j] + s) * H + h;
    __syncthreads();  // zero fill done / the previous chunk's reads of A1, A2 and X done
    load_rows(A1, p.a1 + ch * C * dk, C, dk, P);
    load_rows(A2, p.a2 + ch * C * dk, C, dk, P);
    float* before = p.before + ch * matrix;
    if (live) {
      for (int q = warp; q < dk; q += kWarps) before[q * dv + col] = S[q * kColumns + lane];
    }
    __syncthreads();  // A1, A2 loaded
    float acc[kRowsPerWarp] = {};
    const int row0 = warp * kRowsPerWarp;
    for (int q = 0; q < P; q += 4) {
      const float s0 = S[q * kColumns + lane], s1 = S[(q + 1) * kColumns + lane];
      const float s2 = S[(q + 2) * kColumns + lane], s3 = S[(q + 3) * kColumns + lane];
#pragma unroll
      for (int m = 0; m < kRowsPerWarp; ++m) {
        const float4 a = *reinterpret_cast<const float4*>(A1 + (row0 + m) * P + q);
        acc[m] = fmaf(a.x, s0, fmaf(a.y, s1, fmaf(a.z, s2, fmaf(a.w, s3, acc[m]))));
      }
    }
    const float* base = p.base + ch * C * dv;
    float* x = p.x + ch * C * dv;
#pragma unroll
    for (int m = 0; m < kRowsPerWarp; ++m) {
      const int r = row0 + m;
      if (r < C) {
        const float value = (live ? base[r * dv + col] : 0.f) + p.sign1 * acc[m];
        X[r * kColumns + lane] = value;
        if (live) x[r * dv + col] = value;
      }
    }
    __syncthreads();  // X complete; every read of S for X done
    float sum[kMaxKeysPerWarp] = {};
    const int key0 = warp * keys;
    for (int r = 0; r < C; ++r) {
      const float xr = X[r * kColumns + lane];
#pragma unroll
      for (int m = 0; m < kMaxKeysPerWarp; m += 4) {
        if (m < keys) {
          const float4 a = *reinterpret_cast<const float4*>(A2 + r * P + key0 + m);
          sum[m] = fmaf(a.x, xr, sum[m]);
          sum[m + 1] = fmaf(a.y, xr, sum[m + 1]);
          sum[m + 2] = fmaf(a.z, xr, sum[m + 2]);
          sum[m + 3] = fmaf(a.w, xr, sum[m + 3]);
        }
      }
    }
    const float decay = p.decay[ch];
    const float* add = p.add != nullptr ? p.add + ch * matrix : nullptr;
#pragma unroll
    for (int m = 0; m < kMaxKeysPerWarp; ++m) {
      const int q = key0 + m;
      if (m < keys) {
        float value = decay * S[q * kColumns + lane] + p.sign2 * sum[m];
        if (add != nullptr && live && q < dk) value += add[q * dv + col];
        S[q * kColumns + lane] = value;
      }
    }
  }
  __syncthreads();
  if (live) {
    for (int q = warp; q < dk; q += kWarps) state[q * dv + col] = S[q * kColumns + lane];
  }
}

}  // namespace

bool delta_rule_scan_supported(int chunk, int dk, int dv) {
  return chunk >= 1 && chunk <= kMaxChunk && dk >= 1 && dk <= kMaxDk && dv >= 1;
}

cudaError_t launch_delta_rule_scan(const DeltaRuleScanParams& p, cudaStream_t stream) {
  if (p.seqs == 0 || p.heads == 0) return cudaSuccess;
  const size_t bytes = shared_bytes(p.dk);
  const cudaError_t set = cudaFuncSetAttribute(
      delta_rule_scan_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (set != cudaSuccess) return set;
  const dim3 grid(static_cast<unsigned>((p.dv + kColumns - 1) / kColumns),
                  static_cast<unsigned>(p.heads), static_cast<unsigned>(p.seqs));
  delta_rule_scan_kernel<<<grid, kThreads, bytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace verlpp::kernels
