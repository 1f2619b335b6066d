// Log-probs of target tokens (and the entropy) straight from fp32 logits rows, and their gradient
// back to the logits: the CUDA core, with raw pointers and no LibTorch (the binding is
// logits_logprob.h). Replaces log_softmax's materialised [rows, V] output and the passes over it
// (model/logprob.h: verl's logprobs_from_logits and entropy_from_logits).
//
// Forward, per row x [V] at temperature tau, z = x / tau: one pass keeping a running maximum m,
// s = sum_v e^{z_v - m} and t = sum_v e^{z_v - m} z_v (rescaled when m grows; warp and block
// partial results merged the same way); then
//   logprob = (z_target - m) - log s   (log_softmax's own order of operations),
//   entropy = (m + log s) - t / s      (H = -sum p log p = logsumexp(z) - sum p z).
// m and log s are written for the backward. One block of 512 threads per row.
// Backward, per element, with log p_v = (z_v - m) - log s and p_v = e^{log p_v}:
//   d/dx_v = [g_logprob (1{v = target} - p_v) - g_entropy p_v (log p_v + H)] / tau,
// written in the element type of grad_logits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "verlpp/kernels/element_type.h"

namespace verlpp::kernels {

struct LogitsLogProbParams {
  const float* logits;     // [rows, vocab], contiguous
  const int64_t* targets;  // [rows], each in [0, vocab)
  float* logprob;          // [rows]
  float* entropy;          // [rows] or nullptr
  float* row_max;          // [rows]: m
  float* log_sum;          // [rows]: log s
  int64_t rows = 0, vocab = 0;
  float temperature = 1.f;
};

struct LogitsLogProbBackwardParams {
  const float* logits;        // [rows, vocab], contiguous
  const int64_t* targets;     // [rows]
  const float* row_max;       // [rows], from the forward
  const float* log_sum;       // [rows], from the forward
  const float* grad_logprob;  // [rows] or nullptr (zero)
  const float* grad_entropy;  // [rows] or nullptr (zero)
  const float* entropy;       // [rows]; read only with grad_entropy
  void* grad_logits;          // [rows, vocab] of grad_type
  ElementType grad_type = ElementType::f32;
  int64_t rows = 0, vocab = 0;
  float temperature = 1.f;
};

cudaError_t launch_logits_logprob(const LogitsLogProbParams& params, cudaStream_t stream);
cudaError_t launch_logits_logprob_backward(const LogitsLogProbBackwardParams& params,
                                           cudaStream_t stream);

}  // namespace verlpp::kernels
