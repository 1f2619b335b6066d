// Batch-invariant forward operations: every output element is computed by one fixed sequence of
// float operations that depends only on that element's own inputs, never on how many rows share
// the call, where a row sits in it, or how the work is split over threads. ATen's operations do
// not promise that: a GEMM's kernel and a reduction's split change with the shape, and on the CPU
// vectorised exp/cos run a scalar tail at thread-chunk boundaries. These are what the model's
// layers call in batch-invariant mode (model/batch_invariant.h) so that a token computed in a
// decode step, a chunk of a prefill or the trainer's whole-sequence pass gets the same bits.
//
// CPU: verlpp's loops. Every dot product or row sum of squares of length n runs eight partial sums
// (element i goes to partial i % 8, in order of i), combined as
// ((p0+p1)+(p2+p3))+((p4+p5)+(p6+p7)); an attention row's softmax sum and weighted values run
// sequentially over its keys in order. Arithmetic in fp32 for fp32/bf16/fp16 inputs and in fp64 for
// fp64 inputs. CUDA (bf16/fp16, builds with verlpp's kernels): the GEMM runs as cuBLAS calls of
// exactly kInvariantGemmRows rows each (the last padded with zeros), so that every row goes through
// one kernel configuration (cuBLAS picks a kernel by shape); attention is verlpp's split-KV kernel
// (decode_attention.h) with one query per sequence and keys cut every kInvariantKeysPerSplit keys,
// the same kernel the rollout's decode steps run; silu and cos/sin are ATen's elementwise kernels
// (the same code for every element); token log-probs are kernels/logits_logprob.h (a block per
// row).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <utility>

namespace verlpp::kernels {

inline constexpr int64_t kInvariantGemmRows = 128;
inline constexpr int64_t kInvariantKeysPerSplit = 256;

// True when this build runs the CUDA operations on `x` (a bf16/fp16 CUDA tensor, CUDA kernels
// compiled).
bool can_run_invariant_cuda(const at::Tensor& x);

// x [M, K], weight [N, K], bias [N] or undefined -> x weight^T + bias, [M, N] in out_dtype, each
// element's dot product accumulated in the order above, the bias added once, then rounded (CUDA:
// the product rounded to out_dtype, then the bias added).
at::Tensor invariant_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                            at::ScalarType out_dtype);

// softmax(q k^T * scale) v of each query over its own keys: q [Nq, H, d], k and v [Nk, KV, d]
// with H % KV == 0 (query head h reads kv head h / (H / KV)); key_start, key_count int64 [Nq]
// (any device): query i attends to key rows [key_start_i, key_start_i + key_count_i), count >= 1.
// CPU: scores, softmax and the weighted sum in the compute type (scores = dot * scale, max,
// exp(s - max) summed over keys in order, sum_j e_j v_j in order, divided by the sum). Returns
// [Nq, H, d] in q's dtype.
at::Tensor invariant_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const at::Tensor& key_start, const at::Tensor& key_count,
                               double scale);

// The same for one query per sequence over a paged KV cache (decode_attention_paged's arguments):
// CUDA only, the kernel the CUDA invariant_attention runs, with the same split of the keys.
at::Tensor invariant_decode_attention_paged(const at::Tensor& q, const at::Tensor& k_cache,
                                            const at::Tensor& v_cache, const at::Tensor& pages,
                                            const at::Tensor& page_offsets, int64_t page_size,
                                            const at::Tensor& lengths, int64_t max_length,
                                            double scale);

// x [..., H] -> x_c * rsqrt(mean(x_c^2) + eps) in the compute type (fp32 or fp64), [..., H]: the
// normalised rows LlamaRMSNorm scales (the caller rounds and multiplies by the weight). CPU only
// (on CUDA the model's norm kernels take a block per row).
at::Tensor invariant_rms_normalized(const at::Tensor& x, double eps);

// silu(x) = x / (1 + exp(-x)) elementwise in the compute type, returned in x's dtype (one
// rounding, as at::silu).
at::Tensor invariant_silu(const at::Tensor& x);

// cos and sin of fp32 angles (any shape), fp32, elementwise (CPU: the C library's functions).
std::pair<at::Tensor, at::Tensor> invariant_cos_sin(const at::Tensor& angles);

// log_softmax(logits / temperature)[target] of each row: logits fp32 [N, V] (not yet divided),
// targets int64 [N] -> fp32 [N]: with z = logits / temperature, z_t - max - log(sum_v exp(z_v -
// max)), the sum in the order above (CUDA: kernels/logits_logprob.h). The one function the
// rollout's sampler and the trainer's passes both report sampled tokens' log-probs with in
// batch-invariant mode.
at::Tensor invariant_token_logprobs(const at::Tensor& logits, const at::Tensor& targets,
                                    double temperature);

}  // namespace verlpp::kernels
