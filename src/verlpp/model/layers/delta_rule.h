// The gated delta rule of Gated DeltaNet (Yang, Kautz, Hatamizadeh, "Gated Delta Networks",
// arXiv:2412.06464; Qwen3-Next / Qwen3.5), as transformers' torch_chunk_gated_delta_rule and
// torch_recurrent_gated_delta_rule compute it (models.md §3.1). Per value head, with state
// S [dk, dv] (S_0 = 0 or a cached state):
//   S <- e^{g_t} S;  S <- S + k_t (beta_t (v_t - S^T k_t))^T;  o_t = S^T q_t
// with q, k cast to fp32 and l2-normalised over dk (x * rsqrt(sum(x^2) + 1e-6); transformers 5
// normalises after the cast, "to match the FLA library") and q scaled by dk^-1/2; all in fp32.
//
// Chunked form (training and prefill): chunks of C = 64 tokens of one sequence; per chunk
// gamma = cumsum(g), D_rs = e^{gamma_r - gamma_s} (s <= r), L = strictly lower (diag(beta) K K^T ⊙
// D), (I + L) U = diag(beta) V and (I + L) W = diag(beta e^gamma) K by a unit-triangular solve,
// then over the chunks of a sequence: V' = U - W S, O = (Q ⊙ e^gamma) S + (Q K^T ⊙ D) V', S <-
// e^{gamma_last} S + (K ⊙ e^{gamma_last - gamma})^T V'. A sequence's last chunk is padded with beta
// = g = 0 (state unchanged). gamma and the decays are computed in float64 and rounded once
// (transformers: fp32, which loses |gamma| * 6e-8 of each gamma_r - gamma_s). Every sequence starts
// from its own state: packed sequences never see each other (transformers' torch path leaks across
// them, models.md §3.3).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace verlpp::model {

// Where the tokens of packed sequences sit in the chunked form: chunks listed step-major (chunk 0
// of every sequence, then chunk 1 of the sequences that have one, ...) with the sequences sorted
// by chunk count, longest first, so that the chunks of scan step j are one contiguous range and
// their sequences the first step_sizes[j] of that order.
struct DeltaRuleLayout {
  int64_t tokens = 0;
  int64_t chunk_size = 64;
  int64_t chunks = 0;
  std::vector<int64_t> order;         // sequences, longest first (indices into the input)
  std::vector<int64_t> step_offsets;  // first chunk of step j
  std::vector<int64_t> step_sizes;    // chunks (= sequences) in step j, non-increasing
  at::Tensor chunk_rows;              // [chunks * C] int64: token of each chunk row, `tokens` = pad
  at::Tensor token_rows;              // [tokens] int64: each token's row in the chunked form
  at::Tensor token_offsets;           // [tokens] int64: the token's index within its sequence
  // The scan over chunk steps on the device (kernels/delta_rule_scan.h): step_offsets and each
  // sequence's chunk count in `order`, int64 [steps] and [S].
  at::Tensor scan_offsets;
  at::Tensor scan_counts;
  // `order` on the device, and its inverse (each input sequence's place in `order`), int64 [S].
  at::Tensor order_index;
  at::Tensor order_inverse;
  // The short convolution's layout (Gated DeltaNet): every sequence preceded by conv_window zero
  // rows. conv_rows [S * conv_window + tokens] int64 (`tokens` = a zero row); conv_outputs [tokens]
  // int64: where token t's output lies in a valid (unpadded) convolution over those rows.
  // window_rows [S * conv_window] int64: each sequence's last conv_window tokens (`tokens` where
  // it is shorter), the conv window prefill leaves in its slot.
  int64_t conv_window = 0;
  at::Tensor conv_rows;
  at::Tensor conv_outputs;
  at::Tensor window_rows;

  // starts/lengths: the packed sequences (host; lengths may be 0; starts[s] + lengths[s] <=
  // tokens). Tensors are created on `device`.
  static DeltaRuleLayout build(const std::vector<int64_t>& starts,
                               const std::vector<int64_t>& lengths, int64_t tokens,
                               const at::Device& device, int64_t chunk_size = 64,
                               int64_t conv_window = 3);
};

struct DeltaRuleOutput {
  at::Tensor o;            // [T, H, dv] fp32
  at::Tensor final_state;  // [S, H, dk, dv] fp32, sequence order of the input
};

// q, k [T, H, dk], v [T, H, dv] (one dtype), g [T, H] fp32 (log decay, <= 0), beta [T, H] (any
// float dtype); initial_state [S, H, dk, dv] fp32 or undefined (zeros). Differentiable in q, k,
// v, g and beta through o (the chunked form with its hand-written backward, delta_rule_chunked.h,
// behind autograd's l2 norm and gather into chunks); initial_state and final_state carry no
// gradient.
DeltaRuleOutput chunk_gated_delta_rule(const at::Tensor& q, const at::Tensor& k,
                                       const at::Tensor& v, const at::Tensor& g,
                                       const at::Tensor& beta, const DeltaRuleLayout& layout,
                                       const at::Tensor& initial_state = at::Tensor());

// One token per sequence (the decode step) from `state` [N, H, dk, dv] fp32: q, k [N, H, dk],
// v [N, H, dv], g, beta [N, H] -> o [N, H, dv] fp32 and the next state [N, H, dk, dv].
DeltaRuleOutput recurrent_gated_delta_rule_step(const at::Tensor& q, const at::Tensor& k,
                                                const at::Tensor& v, const at::Tensor& g,
                                                const at::Tensor& beta, const at::Tensor& state);

// The same step on the states at rows `slots` ([N] int64, distinct) of `states` [S, H, dk, dv]
// fp32, updated in place; returns o [N, H, dv] fp32. On CUDA verlpp's fused kernel
// (kernels/delta_rule_decode.h: the state read and written once); elsewhere the step above on the
// gathered rows, scattered back.
at::Tensor recurrent_gated_delta_rule_update(const at::Tensor& q, const at::Tensor& k,
                                             const at::Tensor& v, const at::Tensor& g,
                                             const at::Tensor& beta, at::Tensor& states,
                                             const at::Tensor& slots);

// x * rsqrt(sum(x^2, last dim) + 1e-6) in x's dtype (fla's and transformers' l2norm; the delta
// rule applies it to fp32 q and k).
at::Tensor l2_normalize(const at::Tensor& x);

}  // namespace verlpp::model
