// Masked reductions over response tokens (verl: verl/utils/torch_functional.py, verl.md §3.0).
//
// `values` and `mask` have the same shape (typically [batch, response_length]); `mask` is bool or
// 0/1 floating point (response_mask). Masked-out entries never contribute, even when they hold
// NaN or inf (masked_sum selects with where() before multiplying, as verl does). Results keep the
// floating dtype of `values`. Shape mismatches throw verlpp::Error.
#pragma once

#include <ATen/core/Tensor.h>

namespace verlpp::algo {

// sum(where(m, v, 0) * m): a 0-dim tensor.
at::Tensor masked_sum(const at::Tensor& values, const at::Tensor& mask);
// The same reduced over dimension `dim` only.
at::Tensor masked_sum(const at::Tensor& values, const at::Tensor& mask, int64_t dim);

// masked_sum / (mask.sum() + 1e-8): 0 for an all-masked input.
at::Tensor masked_mean(const at::Tensor& values, const at::Tensor& mask);
// Per-row variant: masked_sum(v, m, dim) / (m.sum(dim) + 1e-8).
at::Tensor masked_mean(const at::Tensor& values, const at::Tensor& mask, int64_t dim);

// masked_mean((v - masked_mean(v))^2), times n/(n-1) with n = mask.sum() when unbiased.
// Throws verlpp::Error when n == 0, or n == 1 and unbiased (verl raises there too).
at::Tensor masked_var(const at::Tensor& values, const at::Tensor& mask, bool unbiased = true);

// (v - masked_mean(v)) * rsqrt(masked_var(v) + 1e-8), statistics over all masked elements; with
// shift_mean == false the mean is added back. Applied to every element (masked ones included).
at::Tensor masked_whiten(const at::Tensor& values, const at::Tensor& mask, bool shift_mean = true);

// max(min(x, hi), lo) with tensor bounds (verl's clip_by_value).
at::Tensor clip_by_value(const at::Tensor& x, const at::Tensor& lo, const at::Tensor& hi);

}  // namespace verlpp::algo
