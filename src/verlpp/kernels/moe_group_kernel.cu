#include "verlpp/kernels/moe_group_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kWarp = 32;
constexpr int kWarps = kMoeGroupThreads / kWarp;
constexpr int kMaxExperts = static_cast<int>(kMoeGroupMaxExperts);
constexpr unsigned kAll = 0xffffffffu;

// count[e] (the pairs of expert e) -> the first row of expert e; offsets[e] = its end. Warp 0.
__device__ void starts_and_offsets(int* count, const MoeGroupParams& p, int lane) {
  const int per_lane = (p.num_experts + kWarp - 1) / kWarp;
  const int first = min(lane * per_lane, p.num_experts);
  const int last = min(first + per_lane, p.num_experts);
  int local = 0;
  for (int e = first; e < last; ++e) local += count[e];
  int inclusive = local;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const int before = __shfl_up_sync(kAll, inclusive, offset);
    if (lane >= offset) inclusive += before;
  }
  int run = inclusive - local;
  for (int e = first; e < last; ++e) {
    const int c = count[e];
    count[e] = run;
    run += c;
    p.offsets[e] = run;
  }
}

__global__ void __launch_bounds__(kMoeGroupThreads) moe_group_kernel(MoeGroupParams p) {
  __shared__ int next_row[kMaxExperts];              // per expert: its next free row
  __shared__ int chunk_count[kMaxExperts];           // per expert: its pairs in this chunk
  __shared__ uint16_t before[kWarps * kMaxExperts];  // [warp][expert]: in the warps before
  const int t = threadIdx.x, warp = t / kWarp, lane = t % kWarp;
  const int E = p.num_experts;
  for (int e = t; e < E; e += kMoeGroupThreads) next_row[e] = 0;
  __syncthreads();
  for (int64_t q = t; q < p.pairs; q += kMoeGroupThreads) {
    const int64_t e = p.experts[q];
    if (e >= 0 && e < E) atomicAdd(&next_row[e], 1);
  }
  __syncthreads();
  if (warp == 0) starts_and_offsets(next_row, p, lane);
  __syncthreads();

  const unsigned lower_lanes = (1u << lane) - 1;
  for (int64_t chunk = 0; chunk < p.pairs; chunk += kMoeGroupThreads) {
    const int64_t q = chunk + t;
    const int64_t expert = q < p.pairs ? p.experts[q] : -1;
    const bool valid = expert >= 0 && expert < E;
    const int e = valid ? static_cast<int>(expert) : -1;
    for (int i = t; i < kWarps * E; i += kMoeGroupThreads) before[i] = 0;
    __syncthreads();
    const unsigned same = __match_any_sync(kAll, e);
    const int rank = __popc(same & lower_lanes);
    if (valid && rank == 0) before[warp * E + e] = static_cast<uint16_t>(__popc(same));
    __syncthreads();
    for (int x = t; x < E; x += kMoeGroupThreads) {
      int run = 0;
      for (int w = 0; w < kWarps; ++w) {
        const int c = before[w * E + x];
        before[w * E + x] = static_cast<uint16_t>(run);
        run += c;
      }
      chunk_count[x] = run;
    }
    __syncthreads();
    if (q < p.pairs) {
      const int64_t row = valid ? next_row[e] + before[warp * E + e] + rank : -1;
      p.row_of_pair[q] = row;
      if (valid) p.source_token[row] = q / p.top_k;
    }
    __syncthreads();
    for (int x = t; x < E; x += kMoeGroupThreads) next_row[x] += chunk_count[x];
  }
}

}  // namespace

cudaError_t launch_moe_group(const MoeGroupParams& p, cudaStream_t stream) {
  if (p.num_experts < 1 || p.num_experts > kMoeGroupMaxExperts || p.top_k < 1) {
    return cudaErrorInvalidValue;
  }
  moe_group_kernel<<<1, kMoeGroupThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace verlpp::kernels
