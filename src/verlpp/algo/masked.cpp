#include "verlpp/algo/masked.h"

#include <ATen/ATen.h>

#include "verlpp/algo/checks.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

at::Tensor masked_product(const at::Tensor& values, const at::Tensor& mask, const char* fn) {
  require_same_shape(values, "values", mask, "mask", fn);
  const at::Tensor m = mask_like(mask, values);
  return at::where(m > 0, values, at::zeros_like(values)) * m;
}

}  // namespace

at::Tensor masked_sum(const at::Tensor& values, const at::Tensor& mask) {
  return masked_product(values, mask, "masked_sum").sum();
}

at::Tensor masked_sum(const at::Tensor& values, const at::Tensor& mask, int64_t dim) {
  return masked_product(values, mask, "masked_sum").sum(dim);
}

at::Tensor masked_mean(const at::Tensor& values, const at::Tensor& mask) {
  return masked_sum(values, mask) / (mask_like(mask, values).sum() + 1e-8);
}

at::Tensor masked_mean(const at::Tensor& values, const at::Tensor& mask, int64_t dim) {
  return masked_sum(values, mask, dim) / (mask_like(mask, values).sum(dim) + 1e-8);
}

at::Tensor masked_var(const at::Tensor& values, const at::Tensor& mask, bool unbiased) {
  const at::Tensor mean = masked_mean(values, mask);
  at::Tensor var = masked_mean((values - mean).square(), mask);
  const double n = mask_like(mask, values).sum().item<double>();
  if (n == 0) throw Error("masked_var: the mask selects no element");
  if (unbiased) {
    if (n == 1) throw Error("masked_var: the unbiased variance needs at least 2 masked elements");
    var = var * (n / (n - 1));
  }
  return var;
}

at::Tensor masked_whiten(const at::Tensor& values, const at::Tensor& mask, bool shift_mean) {
  const at::Tensor mean = masked_mean(values, mask);
  const at::Tensor var = masked_var(values, mask);
  at::Tensor whitened = (values - mean) * at::rsqrt(var + 1e-8);
  if (!shift_mean) whitened = whitened + mean;
  return whitened;
}

at::Tensor clip_by_value(const at::Tensor& x, const at::Tensor& lo, const at::Tensor& hi) {
  return at::maximum(at::minimum(x, hi), lo);
}

}  // namespace verlpp::algo
