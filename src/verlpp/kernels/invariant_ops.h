// Batch-invariant forward operations on the CPU: every output element is computed by one fixed
// sequence of float operations that depends only on that element's own inputs, never on how many
// rows share the call, where a row sits in it, or how the work is split over threads. ATen's CPU
// operations do not promise that: a GEMM's kernel and a reduction's split change with the shape,
// and vectorised exp/cos run a scalar tail at thread-chunk boundaries. These are what the model's
// layers call in batch-invariant mode (model/batch_invariant.h) so that a token computed in a
// decode step, a chunk of a prefill or the trainer's whole-sequence pass gets the same bits.
//
// Order of every sum: a dot product or a row's sum of squares of length n runs eight partial sums
// (element i goes to partial i % 8, in order of i), combined as
// ((p0+p1)+(p2+p3))+((p4+p5)+(p6+p7)); an attention row's softmax sum and weighted values run
// sequentially over its keys in order. Arithmetic in fp32 for fp32/bf16/fp16 inputs and in fp64 for
// fp64 inputs. All tensors must be on the CPU (verlpp::Error otherwise).
#pragma once

#include <ATen/core/Tensor.h>

#include <utility>

namespace verlpp::kernels {

// x [M, K], weight [N, K], bias [N] or undefined -> x weight^T + bias, [M, N] in out_dtype, each
// element's dot product accumulated in the order above, the bias added once, then rounded.
at::Tensor invariant_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                            at::ScalarType out_dtype);

// softmax(q k^T * scale) v of each query over its own keys: q [Nq, H, d], k and v [Nk, KV, d]
// with H % KV == 0 (query head h reads kv head h / (H / KV)); key_start, key_count int64 [Nq]
// (CPU): query i attends to key rows [key_start_i, key_start_i + key_count_i), count >= 1.
// Scores, softmax and the weighted sum in the compute type (scores = dot * scale, max, exp(s - max)
// summed over keys in order, sum_j e_j v_j in order, divided by the sum); returns [Nq, H, d] in
// q's dtype.
at::Tensor invariant_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const at::Tensor& key_start, const at::Tensor& key_count,
                               double scale);

// x [..., H] -> x_c * rsqrt(mean(x_c^2) + eps) in the compute type (fp32 or fp64), [..., H]: the
// normalised rows LlamaRMSNorm scales (the caller rounds and multiplies by the weight).
at::Tensor invariant_rms_normalized(const at::Tensor& x, double eps);

// silu(x) = x / (1 + exp(-x)) elementwise in the compute type, returned in x's dtype (one
// rounding, as at::silu).
at::Tensor invariant_silu(const at::Tensor& x);

// cos and sin of fp32 angles (any shape), fp32, elementwise with the C library's functions.
std::pair<at::Tensor, at::Tensor> invariant_cos_sin(const at::Tensor& angles);

// log_softmax(logits / temperature)[target] of each row: logits fp32 [N, V] (not yet divided),
// targets int64 [N] -> fp32 [N]: with z = logits / temperature, z_t - max - log(sum_v exp(z_v -
// max)), the sum in the order above. The one function the rollout's sampler and the trainer's
// passes both report sampled tokens' log-probs with in batch-invariant mode.
at::Tensor invariant_token_logprobs(const at::Tensor& logits, const at::Tensor& targets,
                                    double temperature);

}  // namespace verlpp::kernels
