#include <cmath>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "verlpp/kernels/token_sampler_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kThreads = 1024;
constexpr int kWarps = kThreads / 32;  // the row is cut into one chunk per warp
constexpr int kItems = 4;              // consecutive vocabulary entries per thread and tile
constexpr int kTile = kThreads * kItems;

// Running maximum and sum of exp(x - maximum).
struct MaxSum {
  float m, s;
};

__device__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, a.s + b.s};  // 0, or NaN from a NaN entry
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

// Adds one entry x (one exponential).
__device__ MaxSum add(MaxSum a, float x) {
  if (x == -INFINITY) return a;
  if (x > a.m) return {x, a.s * expf(a.m - x) + 1.0f};
  return {a.m, a.s + expf(x - a.m)};
}

__device__ MaxSum warp_combine(MaxSum v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = combine(
        v, {__shfl_xor_sync(0xffffffffu, v.m, offset), __shfl_xor_sync(0xffffffffu, v.s, offset)});
  }
  return v;
}

struct Least {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};

struct Most {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return a > b ? a : b; }
};

using BlockScan = cub::BlockScan<float, kThreads>;
using BlockIndex = cub::BlockReduce<int64_t, kThreads>;

struct Shared {
  union {
    typename BlockScan::TempStorage scan;
    typename BlockIndex::TempStorage index;
  } temp;
  MaxSum chunks[kWarps];
  float carries[kWarps + 1];  // cumulative sum before each chunk; carries[kWarps] = total
  MaxSum row;
  float next_carry;
  int64_t index;
};

template <typename T>
__device__ float scaled(const TokenSamplerParams& p, const T* z, int64_t i) {
  return __fmul_rn(load(z, i), p.inverse_temperature);
}

// This thread's kItems entries from `first` (before `end`): exp(x - m) (0 from `end` on) and their
// running sums; returns the thread's sum and raises `last_positive` to its last entry > 0.
template <typename T>
__device__ float tile_items(const TokenSamplerParams& p, const T* z, int64_t first, int64_t end,
                            float m, float (&running)[kItems], int64_t& last_positive) {
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int64_t i = first + j;
    const float e = i < end ? expf(scaled(p, z, i) - m) : 0.0f;
    if (e > 0.0f) last_positive = i;
    sum += e;
    running[j] = sum;
  }
  return sum;
}

// The cumulative sum before this thread's entries of a tile whose own cumulative sum starts at
// `carry`. Every thread calls it (a block scan).
__device__ float thread_base(Shared& shared, float carry, float thread_sum) {
  float before;
  BlockScan(shared.temp.scan).ExclusiveSum(thread_sum, before);
  __syncthreads();
  return carry + before;
}

// `value` reduced over the block by `op`, in every thread.
template <typename Op>
__device__ int64_t block_index(Shared& shared, int64_t value, Op op) {
  const int64_t reduced = BlockIndex(shared.temp.index).Reduce(value, op);
  if (threadIdx.x == 0) shared.index = reduced;
  __syncthreads();
  const int64_t result = shared.index;
  __syncthreads();
  return result;
}

// Pass 1: each warp's chunk [w chunk, (w + 1) chunk) as {max, sum of exp(x - max)}, lanes strided;
// then (thread 0) the row's max and sum and the chunks' cumulative sums relative to the row's max.
template <typename T>
__device__ void chunk_sums(const TokenSamplerParams& p, const T* z, int64_t chunk, Shared& shared) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t begin = warp * chunk, end = min(p.vocab, begin + chunk);
  MaxSum mine{-INFINITY, 0.0f};
  for (int64_t i = begin + lane; i < end; i += 32) mine = add(mine, scaled(p, z, i));
  mine = warp_combine(mine);
  if (lane == 0) shared.chunks[warp] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    MaxSum row{-INFINITY, 0.0f};
    for (int w = 0; w < kWarps; ++w) row = combine(row, shared.chunks[w]);
    shared.row = row;
    shared.carries[0] = 0.0f;
    for (int w = 0; w < kWarps; ++w) {
      const MaxSum c = shared.chunks[w];
      const float relative = c.m == -INFINITY ? c.s : c.s * expf(c.m - row.m);
      shared.carries[w + 1] = shared.carries[w] + relative;
    }
  }
  __syncthreads();
}

// Pass 2: the draw inside chunk `found` [begin, end) whose sums start at `carry`: tiles of the
// whole block with a block scan each, until one holds the first cumulative sum above `target`.
// When rounding leaves none (the chunk's own sums fall short of its pass-1 total), its last entry
// of positive weight.
template <typename T>
__device__ int64_t draw_in_chunk(const TokenSamplerParams& p, const T* z, int64_t begin,
                                 int64_t end, float carry, float target, float m, Shared& shared) {
  int64_t last_positive = -1;
  for (int64_t tile = begin; tile < end; tile += kTile) {
    float running[kItems];
    const int64_t first = tile + int64_t{threadIdx.x} * kItems;
    const float sum = tile_items(p, z, first, end, m, running, last_positive);
    const float base = thread_base(shared, carry, sum);
    int64_t crossing = INT64_MAX;
#pragma unroll
    for (int j = kItems - 1; j >= 0; --j) {
      if (first + j < end && base + running[j] > target) crossing = first + j;
    }
    if (threadIdx.x == kThreads - 1) shared.next_carry = base + sum;
    const int64_t least = block_index(shared, crossing, Least());
    if (least != INT64_MAX) return least;
    carry = shared.next_carry;
  }
  return block_index(shared, last_positive, Most());
}

template <typename T>
__global__ void __launch_bounds__(kThreads) token_sampler_kernel(TokenSamplerParams p) {
  __shared__ Shared shared;
  const int64_t row = blockIdx.x;
  const T* z = static_cast<const T*>(p.logits) + row * p.row_stride;
  const int64_t chunk = (p.vocab + kWarps - 1) / kWarps;
  chunk_sums(p, z, chunk, shared);
  const float m = shared.row.m;
  const float total = shared.carries[kWarps];
  const float target = fminf(static_cast<float>(p.uniforms[row] * static_cast<double>(total)),
                             nextafterf(total, 0.0f));
  int found = kWarps;  // the chunk holding the draw; none when the sums are NaN
  for (int w = 0; w < kWarps; ++w) {
    if (shared.carries[w + 1] > target) {
      found = w;
      break;
    }
  }
  int64_t token = p.vocab - 1;
  if (found < kWarps) {
    const int64_t begin = found * chunk, end = min(p.vocab, begin + chunk);
    const int64_t drawn = draw_in_chunk(p, z, begin, end, shared.carries[found], target, m, shared);
    if (drawn >= 0) token = drawn;
  }
  if (threadIdx.x == 0) {
    p.tokens[row] = token;
    p.logprobs[row] = scaled(p, z, token) - (m + logf(shared.row.s));
  }
}

template <typename T>
cudaError_t launch(const TokenSamplerParams& p, cudaStream_t stream) {
  token_sampler_kernel<T><<<static_cast<unsigned>(p.rows), kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_token_sampler(const TokenSamplerParams& p, cudaStream_t stream) {
  if (p.rows == 0) return cudaSuccess;
  if (p.vocab < 1 || p.vocab > kTokenSamplerMaxVocab) return cudaErrorInvalidValue;
  return with_element_type(p.dtype,
                           [&](auto tag) { return launch<ElementOf<decltype(tag)>>(p, stream); });
}

}  // namespace verlpp::kernels
