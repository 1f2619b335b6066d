// LibTorch binding of the log-prob kernels (logits_logprob_kernel.h): checks the tensors and
// launches on the current CUDA stream.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::kernels {

// True when this build compiled the CUDA kernels and they take `logits`: a contiguous fp32 CUDA
// [rows, V] tensor.
bool can_logits_logprob(const at::Tensor& logits);

// Per row of logits [rows, V] at `temperature`: logprob, entropy (undefined unless
// `with_entropy`), and the row's maximum and log-sum-exp pieces the backward reads, each fp32
// [rows]. targets [rows] int64 on the logits' device; a target outside [0, V) gives a NaN
// log-prob. Throws verlpp::Error when can_logits_logprob is false or a tensor disagrees.
struct LogitsLogProb {
  at::Tensor logprob, entropy, row_max, log_sum;
};
LogitsLogProb logits_logprob(const at::Tensor& logits, const at::Tensor& targets,
                             double temperature, bool with_entropy);

// d loss / d logits [rows, V] in `grad_dtype` (fp32, bf16 or fp16) from grad_logprob and
// grad_entropy [rows] fp32 (either may be undefined: zero; grad_entropy needs forward.entropy),
// for the same logits, targets and temperature as `forward`.
at::Tensor logits_logprob_backward(const at::Tensor& logits, const at::Tensor& targets,
                                   const LogitsLogProb& forward, const at::Tensor& grad_logprob,
                                   const at::Tensor& grad_entropy, double temperature,
                                   at::ScalarType grad_dtype);

}  // namespace verlpp::kernels
