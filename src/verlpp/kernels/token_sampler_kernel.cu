#include <cmath>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "verlpp/kernels/token_sampler_kernel.h"

namespace verlpp::kernels {

namespace {

constexpr int kThreads = 1024;
constexpr int kItems = 4;  // consecutive vocabulary entries per thread and tile
constexpr int kTile = kThreads * kItems;
constexpr int kMaxTiles = static_cast<int>(kTokenSamplerMaxVocab / kTile);

// Running maximum and sum of exp(x - maximum).
struct MaxSum {
  float m, s;
};

__device__ MaxSum combine(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return {m, 0.0f};
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

// Adds one entry x (one exponential).
__device__ MaxSum add(MaxSum a, float x) {
  if (x == -INFINITY) return a;
  if (x > a.m) return {x, a.s * expf(a.m - x) + 1.0f};
  return {a.m, a.s + expf(x - a.m)};
}

struct CombineMaxSum {
  __device__ MaxSum operator()(const MaxSum& a, const MaxSum& b) const { return combine(a, b); }
};

struct Least {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return a < b ? a : b; }
};

using BlockMaxSum = cub::BlockReduce<MaxSum, kThreads>;
using BlockScan = cub::BlockScan<float, kThreads>;
using BlockMin = cub::BlockReduce<int64_t, kThreads>;

struct Shared {
  union {
    typename BlockMaxSum::TempStorage max_sum;
    typename BlockScan::TempStorage scan;
    typename BlockMin::TempStorage min;
  } temp;
  float carries[kMaxTiles + 1];  // cumulative sum before each tile; carries[tiles] = total
  MaxSum row;
};

template <typename T>
__device__ float scaled(const TokenSamplerParams& p, const T* z, int64_t i) {
  return __fmul_rn(load(z, i), p.inverse_temperature);
}

// This thread's kItems entries of tile `tile`: exp(x - m) (0 past the vocabulary) and their
// running sums; returns the thread's sum.
template <typename T>
__device__ float tile_items(const TokenSamplerParams& p, const T* z, int tile, float m,
                            float (&running)[kItems]) {
  const int64_t first = int64_t{tile} * kTile + int64_t{threadIdx.x} * kItems;
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int64_t i = first + j;
    sum += i < p.vocab ? expf(scaled(p, z, i) - m) : 0.0f;
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

template <typename T>
__global__ void __launch_bounds__(kThreads) token_sampler_kernel(TokenSamplerParams p) {
  __shared__ Shared shared;
  const int64_t row = blockIdx.x;
  const T* z = static_cast<const T*>(p.logits) + row * p.row_stride;
  const int tiles = static_cast<int>((p.vocab + kTile - 1) / kTile);

  MaxSum mine{-INFINITY, 0.0f};
  for (int64_t i = threadIdx.x; i < p.vocab; i += kThreads) mine = add(mine, scaled(p, z, i));
  const MaxSum all = BlockMaxSum(shared.temp.max_sum).Reduce(mine, CombineMaxSum());
  if (threadIdx.x == 0) shared.row = all;
  __syncthreads();
  const float m = shared.row.m;

  // The cumulative sums at the tiles' ends; the last entry of tile k ends at carries[k + 1].
  float carry = 0.0f;
  if (threadIdx.x == 0) shared.carries[0] = 0.0f;
  for (int tile = 0; tile < tiles; ++tile) {
    float running[kItems];
    const float sum = tile_items(p, z, tile, m, running);
    const float base = thread_base(shared, carry, sum);
    if (threadIdx.x == kThreads - 1) shared.carries[tile + 1] = base + sum;
    __syncthreads();
    carry = shared.carries[tile + 1];
  }
  const float total = carry;
  const float target = fminf(static_cast<float>(p.uniforms[row] * static_cast<double>(total)),
                             nextafterf(total, 0.0f));
  int found = tiles;  // the tile holding the draw; none when the sums are NaN
  for (int tile = 0; tile < tiles; ++tile) {
    if (shared.carries[tile + 1] > target) {
      found = tile;
      break;
    }
  }
  int64_t token = p.vocab - 1;
  if (found < tiles) {
    float running[kItems];
    const float sum = tile_items(p, z, found, m, running);
    const float base = thread_base(shared, shared.carries[found], sum);
    int64_t first = INT64_MAX;
    const int64_t start = int64_t{found} * kTile + int64_t{threadIdx.x} * kItems;
#pragma unroll
    for (int j = kItems - 1; j >= 0; --j) {
      if (start + j < p.vocab && base + running[j] > target) first = start + j;
    }
    const int64_t least = BlockMin(shared.temp.min).Reduce(first, Least());
    if (least != INT64_MAX) token = least;
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
  switch (p.dtype) {
    case ElementType::bf16:
      return launch<__nv_bfloat16>(p, stream);
    case ElementType::f16:
      return launch<__half>(p, stream);
    default:
      return launch<float>(p, stream);
  }
}

}  // namespace verlpp::kernels
