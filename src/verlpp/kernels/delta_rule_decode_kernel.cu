#include <cmath>

#include "verlpp/kernels/delta_rule_decode_kernel.h"

namespace verlpp::kernels {

namespace {

// kMaxDk: the registers per thread for its state column (the smallest instance >= dk is launched).
template <int kMaxDk>
__global__ void delta_rule_decode_kernel(DeltaRuleDecodeParams p) {
  extern __shared__ float shared[];  // q then k of this (sequence, head): 2 * dk floats
  float* qs = shared;
  float* ks = shared + p.dk;
  const int h = blockIdx.x, n = blockIdx.y, j = threadIdx.x;
  const int64_t row = static_cast<int64_t>(n) * p.heads + h;
  for (int i = j; i < p.dk; i += blockDim.x) {
    qs[i] = p.q[row * p.dk + i];
    ks[i] = p.k[row * p.dk + i];
  }
  __syncthreads();
  if (j >= p.dv) return;
  const float decay = expf(p.g[row]);
  const float beta = p.beta[row];
  float* column = p.state + (p.slots[n] * p.heads + h) * static_cast<int64_t>(p.dk) * p.dv + j;
  float s[kMaxDk];
  float memory = 0.0f;  // (S^T k)_j after the decay
#pragma unroll
  for (int i = 0; i < kMaxDk; ++i) {
    if (i < p.dk) {
      s[i] = column[static_cast<int64_t>(i) * p.dv] * decay;
      memory = fmaf(s[i], ks[i], memory);
    }
  }
  const float delta = (p.v[row * p.dv + j] - memory) * beta;
  float o = 0.0f;
#pragma unroll
  for (int i = 0; i < kMaxDk; ++i) {
    if (i < p.dk) {
      s[i] = fmaf(ks[i], delta, s[i]);
      o = fmaf(s[i], qs[i], o);
      column[static_cast<int64_t>(i) * p.dv] = s[i];
    }
  }
  p.out[row * p.dv + j] = o;
}

template <int kMaxDk>
cudaError_t launch(const DeltaRuleDecodeParams& p, cudaStream_t stream) {
  const int threads = ((p.dv + 31) / 32) * 32;
  const dim3 grid(static_cast<unsigned>(p.heads), static_cast<unsigned>(p.num_seqs));
  const size_t shared_bytes = 2 * static_cast<size_t>(p.dk) * sizeof(float);
  delta_rule_decode_kernel<kMaxDk><<<grid, threads, shared_bytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

bool delta_rule_decode_supported(int dk, int dv) {
  return dk >= 1 && dk <= 256 && dv >= 1 && dv <= 1024;
}

cudaError_t launch_delta_rule_decode(const DeltaRuleDecodeParams& p, cudaStream_t stream) {
  if (!delta_rule_decode_supported(p.dk, p.dv) || p.num_seqs > 65535) return cudaErrorInvalidValue;
  if (p.num_seqs == 0 || p.heads == 0) return cudaSuccess;
  if (p.dk <= 32) return launch<32>(p, stream);
  if (p.dk <= 64) return launch<64>(p, stream);
  if (p.dk <= 128) return launch<128>(p, stream);
  return launch<256>(p, stream);
}

}  // namespace verlpp::kernels
