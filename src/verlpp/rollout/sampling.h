// Next-token sampling for the rollout engine, with verl's rollout keys (temperature, top_k, top_p,
// do_sample). Order as transformers' logits warpers and vLLM's sampler: divide the logits by the
// temperature, keep the top_k largest (ties at the k-th value kept), then the smallest set of the
// most probable tokens whose probability reaches top_p (transformers TopPLogitsWarper: sort
// ascending, drop tokens whose cumulative probability is <= 1 - top_p, always keep the most
// probable), then draw from the softmax of what is left.
//
// The draw is keyed by row, not by batch: row i of a step uses one uniform number derived from
// (seed, the row's index in the whole generation batch, the step), so a batch generated in pieces
// (max_num_seqs chunks, data-parallel ranks, rows leaving the decode batch) samples exactly what
// the whole batch would.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::rollout {

// verl's forward passes divide the logits by the temperature clamped to at least this (verl.md §3);
// a greedy rollout at temperature 0 takes its log-probs with the same clamp, so that they equal
// the trainer's old_log_prob (nearly one-hot at the greedy token).
inline constexpr double kMinLogProbTemperature = 1e-8;

struct SamplerSettings {
  bool greedy = false;       // argmax of the logits (do_sample = false or temperature 0)
  double temperature = 1.0;  // > 0; that of the log-probs (greedy at 0: kMinLogProbTemperature)
  std::int64_t top_k = -1;   // <= 0 or >= vocab: off
  double top_p = 1.0;        // in (0, 1]; 1: off
};

struct SampledTokens {
  at::Tensor tokens;    // [N] int64
  at::Tensor logprobs;  // [N] fp32: log softmax(logits / temperature)[token], before truncation
};

// One uniform number in [0, 1) per row, fp64 [N] on row_ids' device: splitmix64 (Steele et al.,
// "Fast splittable pseudorandom number generators", 2014) of (seed, row id, step), top 53 bits.
// row_ids: int64 [N], the rows' indices in the whole generation batch.
at::Tensor row_uniforms(std::uint64_t seed, const at::Tensor& row_ids, std::int64_t step);

// The same number for one row, on the host (for callers whose rows are at different steps).
double row_uniform(std::uint64_t seed, std::int64_t row_id, std::int64_t step);

// logits [N, V] (any float dtype; computed in fp32), uniforms [N] from row_uniforms. The draw is
// inverse-CDF sampling: the first token whose cumulative probability (fp32, in vocabulary order)
// exceeds u times the total, so a row's token depends only on its logits and its u, and nothing
// waits for the host. On CUDA without top_k / top_p one kernel does it all
// (kernels/token_sampler.h: its own fp32 block scans, so a u within rounding of a boundary may
// pick the token next to the one ATen's cumsum would). Throws verlpp::Error for temperature <= 0
// or top_p outside (0, 1].
SampledTokens sample_tokens(const at::Tensor& logits, const SamplerSettings& settings,
                            const at::Tensor& uniforms);

// logits / temperature with the tokens that top_k / top_p remove set to -inf, fp32 [N, V].
at::Tensor truncated_logits(const at::Tensor& logits, const SamplerSettings& settings);

}  // namespace verlpp::rollout
