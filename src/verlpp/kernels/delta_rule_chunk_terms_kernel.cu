#include <cstdint>

#include "verlpp/kernels/delta_rule_chunk_terms_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kThreads = 256;
constexpr int kGrid = 16;      // the 16 x 16 thread grid
constexpr int kMaxChunk = 64;  // rows: y + 16 i, i < 4
constexpr int kRowsPerThread = kMaxChunk / kGrid;
constexpr int kColumnTile = 128;  // columns of a C x d product per pass: 4 per lane
constexpr int kRowsPerWarp = kMaxChunk / (kThreads / 32);
constexpr int kMaxDim = 256;
constexpr int kSquare = kMaxChunk + 4;  // row stride of A and T in shared memory
constexpr int kBlock = 16;              // the blocks of the inverse: 4 x 4 of 16 x 16

// Row stride in shared memory of [64, d] matrices: d rounded up to 4 (float4 reads) plus 4, so
// that the 8 rows a quarter warp reads at once fall in different banks.
__host__ __device__ int row_stride(int d) { return (d + 3) / 4 * 4 + 4; }

struct Layout {
  int pk, pv, pqv;  // strides of K, V and of the buffer holding Q, then V
  size_t bytes;
};

__host__ __device__ Layout layout(int dk, int dv) {
  Layout l;
  l.pk = row_stride(dk);
  l.pv = row_stride(dv);
  l.pqv = l.pk > l.pv ? l.pk : l.pv;
  l.bytes = kMaxChunk * sizeof(double) +
            (kMaxChunk * (l.pk + l.pqv) + (2 * kMaxChunk + kBlock) * kSquare + 4 * kMaxChunk) *
                sizeof(float);
  return l;
}

// dst [64][stride] <- src [C][d] (row-major), zero beyond C rows and d columns; as float4 with
// four loads in flight per thread when the rows allow it.
__device__ void load_rows(float* dst, const float* src, int C, int d, int stride) {
  if (d % 4 == 0 && reinterpret_cast<uintptr_t>(src) % 16 == 0) {
    const int q = d / 4, sq = stride / 4;
    const auto* src4 = reinterpret_cast<const float4*>(src);
    auto* dst4 = reinterpret_cast<float4*>(dst);
#pragma unroll 4
    for (int e = threadIdx.x; e < kMaxChunk * sq; e += kThreads) {
      const int r = e / sq, c = e - r * sq;
      dst4[e] = (r < C && c < q) ? src4[r * q + c] : make_float4(0.f, 0.f, 0.f, 0.f);
    }
    return;
  }
  for (int e = threadIdx.x; e < kMaxChunk * stride; e += kThreads) {
    const int r = e / stride, c = e - r * stride;
    dst[e] = (r < C && c < d) ? src[r * d + c] : 0.f;
  }
}

__device__ float dot4(const float4& a, const float4& b, float acc) {
  return fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, fmaf(a.w, b.w, acc))));
}

// out [C][cols] = (T diag(coef)) B over s < C, B [64][stride] in shared memory (stride a multiple
// of 4; T's entries beyond column C - 1 of rows < C and B's rows >= C are zero). Warp w takes rows
// 8w .. 8w + 7 and lane l columns c0 + 4l .. 4l + 3: per 4 values of s, eight broadcast float4
// reads of T and four float4 reads of B for 128 multiply-adds.
__device__ void lower_product(const float* T, const float* coef, const float* B, int stride,
                              int cols, int C, float* out) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row0 = warp * kRowsPerWarp;
  const int s_end = (C + 3) / 4 * 4;
  for (int c0 = 0; c0 < cols; c0 += kColumnTile) {
    const int c = c0 + 4 * lane;
    const bool inside = c < stride;  // c and stride are multiples of 4: c + 3 < stride too
    float acc[kRowsPerWarp][4] = {};
    for (int s = 0; s < s_end; s += 4) {
      float4 b[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        b[u] = inside ? *reinterpret_cast<const float4*>(B + (s + u) * stride + c)
                      : make_float4(0.f, 0.f, 0.f, 0.f);
      }
      const float4 k = *reinterpret_cast<const float4*>(coef + s);
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; ++i) {
        const float4 t = *reinterpret_cast<const float4*>(T + (row0 + i) * kSquare + s);
        const float a[4] = {t.x * k.x, t.y * k.y, t.z * k.z, t.w * k.w};
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          acc[i][0] = fmaf(a[u], b[u].x, acc[i][0]);
          acc[i][1] = fmaf(a[u], b[u].y, acc[i][1]);
          acc[i][2] = fmaf(a[u], b[u].z, acc[i][2]);
          acc[i][3] = fmaf(a[u], b[u].w, acc[i][3]);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kRowsPerWarp; ++i) {
      const int r = row0 + i;
      if (r >= C) continue;
      if (cols % 4 == 0 && c < cols) {  // out is 16-byte aligned when cols is a multiple of 4
        *reinterpret_cast<float4*>(out + r * cols + c) =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        continue;
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (c + j < cols) out[r * cols + c + j] = acc[i][j];
      }
    }
  }
}

// out [C][d] = src [64][stride] with row r scaled by scale[r].
__device__ void scaled_rows(const float* src, int stride, const float* scale, int C, int d,
                            float* out) {
  for (int e = threadIdx.x; e < C * d; e += kThreads) {
    const int r = e / d, c = e - r * d;
    out[e] = src[r * stride + c] * scale[r];
  }
}

// T = (I + A)^{-1} into shared memory (A strictly lower, zero beyond C rows and columns; both
// [64][kSquare]), by 16 x 16 blocks: the four diagonal blocks T_ii = (I + A_ii)^{-1} by forward
// substitution, one warp each (lane l: column l % 16, rows 8 (l / 16) .. + 7), then block rows
// i = 1..3: T_ij = -T_ii M_ij with M_ij = sum_{k=j}^{i-1} A_ik T_kj for j < i (the blocks of
// (I + A) T = I), through M [16][kSquare]. Seven block-wide barriers instead of one per row.
__device__ void invert_unit_lower(const float* A, float* T, float* M) {
  for (int e = threadIdx.x; e < kMaxChunk * kMaxChunk; e += kThreads) {
    const int r = e / kMaxChunk, s = e % kMaxChunk;
    T[r * kSquare + s] = r == s ? 1.f : 0.f;
  }
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp < kMaxChunk / kBlock) {
    const int base = warp * kBlock, c = base + lane % kBlock, first = base + lane / kBlock * 8;
    for (int s = base; s < base + kBlock; ++s) {
      __syncwarp();
      const float ts = T[s * kSquare + c];
#pragma unroll
      for (int r = first; r < first + 8; ++r) {
        if (r > s) T[r * kSquare + c] = fmaf(-A[r * kSquare + s], ts, T[r * kSquare + c]);
      }
    }
  }
  __syncthreads();
  for (int i = 1; i < kMaxChunk / kBlock; ++i) {
    const int entries = i * kBlock * kBlock, row0 = i * kBlock;
    for (int e = threadIdx.x; e < entries; e += kThreads) {
      const int r = e / (i * kBlock), col = e % (i * kBlock), j = col / kBlock;
      float acc = 0.f;
      for (int k = j * kBlock; k < row0; ++k) {
        acc = fmaf(A[(row0 + r) * kSquare + k], T[k * kSquare + col], acc);
      }
      M[r * kSquare + col] = acc;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < entries; e += kThreads) {
      const int r = e / (i * kBlock), col = e % (i * kBlock);
      float acc = 0.f;
#pragma unroll
      for (int m = 0; m < kBlock; ++m) {
        acc = fmaf(T[(row0 + r) * kSquare + row0 + m], M[m * kSquare + col], acc);
      }
      T[(row0 + r) * kSquare + col] = -acc;
    }
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kThreads) chunk_terms_kernel(DeltaRuleChunkTermsParams p) {
  extern __shared__ double shared_d[];
  const int C = p.chunk, dk = p.dk, dv = p.dv;
  const Layout l = layout(dk, dv);
  double* gamma = shared_d;                                // [64]
  float* K = reinterpret_cast<float*>(gamma + kMaxChunk);  // [64][pk]
  float* QV = K + kMaxChunk * l.pk;                        // [64][pqv]: Q, then V
  float* A = QV + kMaxChunk * l.pqv;                       // [64][68]
  float* T = A + kMaxChunk * kSquare;                      // [64][68]
  float* M = T + kMaxChunk * kSquare;                      // [16][68]: the inverse's scratch
  float* beta = M + kBlock * kSquare;                      // [64]
  float* egamma = beta + kMaxChunk;                        // [64]
  float* tail = egamma + kMaxChunk;                        // [64]
  float* beta_egamma = tail + kMaxChunk;                   // [64]
  const int64_t b = blockIdx.x;                            // chunk * heads + head
  const int tid = threadIdx.x, y = tid / kGrid, x = tid % kGrid;

  if (tid < kMaxChunk) {
    gamma[tid] = tid < C ? static_cast<double>(p.g[b * C + tid]) : 0.0;
    beta[tid] = tid < C ? p.beta[b * C + tid] : 0.f;
    beta_egamma[tid] = 0.f;
  }
  load_rows(K, p.k + b * C * dk, C, dk, l.pk);
  load_rows(QV, p.q + b * C * dk, C, dk, l.pqv);
  __syncthreads();
  if (tid == 0) {
    double sum = 0.0;
    for (int r = 0; r < C; ++r) gamma[r] = sum += gamma[r];
    p.last_decay[b] = static_cast<float>(exp(sum));
  }
  __syncthreads();
  if (tid < C) {
    egamma[tid] = static_cast<float>(exp(gamma[tid]));
    tail[tid] = static_cast<float>(exp(gamma[C - 1] - gamma[tid]));
    beta_egamma[tid] = beta[tid] * egamma[tid];
    p.egamma[b * C + tid] = egamma[tid];
    p.tail[b * C + tid] = tail[tid];
  }

  // KK and QK for the thread's rows y + 16 i and columns x + 16 j.
  float kk[kRowsPerThread][kRowsPerThread] = {}, qk[kRowsPerThread][kRowsPerThread] = {};
  const int d4 = (dk + 3) / 4 * 4;
  for (int d = 0; d < d4; d += 4) {
    float4 kr[kRowsPerThread], qr[kRowsPerThread], kc[kRowsPerThread];
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
      kr[i] = *reinterpret_cast<const float4*>(K + (y + kGrid * i) * l.pk + d);
      qr[i] = *reinterpret_cast<const float4*>(QV + (y + kGrid * i) * l.pqv + d);
      kc[i] = *reinterpret_cast<const float4*>(K + (x + kGrid * i) * l.pk + d);
    }
#pragma unroll
    for (int i = 0; i < kRowsPerThread; ++i) {
#pragma unroll
      for (int j = 0; j < kRowsPerThread; ++j) {
        kk[i][j] = dot4(kr[i], kc[j], kk[i][j]);
        qk[i][j] = dot4(qr[i], kc[j], qk[i][j]);
      }
    }
  }
  __syncthreads();  // egamma, tail written
  const int64_t square = b * C * C;
#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int r = y + kGrid * i;
#pragma unroll
    for (int j = 0; j < kRowsPerThread; ++j) {
      const int s = x + kGrid * j;
      const bool inside = r < C && s < C;
      const float decay = inside && s <= r ? static_cast<float>(exp(gamma[r] - gamma[s])) : 0.f;
      A[r * kSquare + s] = inside && s < r ? beta[r] * kk[i][j] * decay : 0.f;
      if (!inside) continue;
      const int64_t o = square + r * C + s;
      p.p[o] = qk[i][j] * decay;
      if (p.decay != nullptr) {
        p.decay[o] = decay;
        p.kk[o] = kk[i][j];
        p.qk[o] = qk[i][j];
      }
    }
  }
  scaled_rows(QV, l.pqv, egamma, C, dk, p.qd + b * C * dk);
  scaled_rows(K, l.pk, tail, C, dk, p.kd + b * C * dk);
  __syncthreads();  // A complete; every read of Q done
  load_rows(QV, p.v + b * C * dv, C, dv, l.pv);

  invert_unit_lower(A, T, M);  // ends with a barrier: T and V complete
  if (p.inverse != nullptr) {
    for (int e = tid; e < C * C; e += kThreads) {
      const int r = e / C, s = e - r * C;
      p.inverse[square + e] = T[r * kSquare + s];
    }
  }
  lower_product(T, beta, QV, l.pv, dv, C, p.u + b * C * dv);
  lower_product(T, beta_egamma, K, l.pk, dk, C, p.w + b * C * dk);
}

}  // namespace

bool delta_rule_chunk_terms_supported(int chunk, int dk, int dv) {
  return chunk >= 1 && chunk <= kMaxChunk && dk >= 1 && dk <= kMaxDim && dv >= 1 && dv <= kMaxDim;
}

cudaError_t launch_delta_rule_chunk_terms(const DeltaRuleChunkTermsParams& p, cudaStream_t stream) {
  if (p.chunks == 0 || p.heads == 0) return cudaSuccess;
  const size_t bytes = layout(p.dk, p.dv).bytes;
  const cudaError_t set = cudaFuncSetAttribute(
      chunk_terms_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (set != cudaSuccess) return set;
  const auto blocks = static_cast<unsigned>(p.chunks * p.heads);
  chunk_terms_kernel<<<blocks, kThreads, bytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace verlpp::kernels
