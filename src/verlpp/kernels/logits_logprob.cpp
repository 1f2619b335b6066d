#include "verlpp/kernels/logits_logprob.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/logits_logprob_kernel.h"
#endif

namespace verlpp::kernels {

namespace {

bool is_row_vector(const at::Tensor& t, int64_t rows, const at::Device& device,
                   at::ScalarType dtype = at::kFloat) {
  return t.defined() && t.scalar_type() == dtype && t.is_contiguous() && t.device() == device &&
         t.sizes() == at::IntArrayRef({rows});
}

void check(const at::Tensor& logits, const at::Tensor& targets) {
  if (!can_logits_logprob(logits) ||
      !is_row_vector(targets, logits.size(0), logits.device(), at::kLong)) {
    throw Error(fmt::format(
        "logits log-prob kernel: needs a build with verlpp's CUDA kernels, contiguous fp32 CUDA "
        "logits [rows, V] and contiguous int64 targets [rows] beside them; got logits [{}] ({}, "
        "{}), targets [{}]",
        fmt::join(logits.sizes(), ", "), c10::toString(logits.scalar_type()), logits.device().str(),
        fmt::join(targets.sizes(), ", ")));
  }
}

#ifdef VERLPP_CUDA_KERNELS
const float* optional(const at::Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; }
#endif

}  // namespace

bool can_logits_logprob(const at::Tensor& logits) {
#ifdef VERLPP_CUDA_KERNELS
  return logits.is_cuda() && logits.dim() == 2 && logits.scalar_type() == at::kFloat &&
         logits.is_contiguous() && logits.size(0) <= 2147483647;
#else
  (void)logits;
  return false;
#endif
}

LogitsLogProb logits_logprob(const at::Tensor& logits, const at::Tensor& targets,
                             double temperature, bool with_entropy) {
  check(logits, targets);
  const int64_t rows = logits.size(0);
  LogitsLogProb out;
  out.logprob = at::empty({rows}, logits.options());
  out.row_max = at::empty({rows}, logits.options());
  out.log_sum = at::empty({rows}, logits.options());
  if (with_entropy) out.entropy = at::empty({rows}, logits.options());
#ifdef VERLPP_CUDA_KERNELS
  LogitsLogProbParams p;
  p.logits = logits.data_ptr<float>();
  p.targets = targets.data_ptr<int64_t>();
  p.logprob = out.logprob.data_ptr<float>();
  p.entropy = with_entropy ? out.entropy.data_ptr<float>() : nullptr;
  p.row_max = out.row_max.data_ptr<float>();
  p.log_sum = out.log_sum.data_ptr<float>();
  p.rows = rows;
  p.vocab = logits.size(1);
  p.temperature = static_cast<float>(temperature);
  check_launch(launch_logits_logprob(p, current_stream(logits.device())), "logits log-prob");
#else
  (void)temperature;
#endif
  return out;
}

at::Tensor logits_logprob_backward(const at::Tensor& logits, const at::Tensor& targets,
                                   const LogitsLogProb& forward, const at::Tensor& grad_logprob,
                                   const at::Tensor& grad_entropy, double temperature,
                                   at::ScalarType grad_dtype) {
  check(logits, targets);
  const int64_t rows = logits.size(0);
  const at::Device device = logits.device();
  const auto optional_ok = [&](const at::Tensor& t) {
    return !t.defined() || is_row_vector(t, rows, device);
  };
  if (!is_row_vector(forward.row_max, rows, device) ||
      !is_row_vector(forward.log_sum, rows, device) || !optional_ok(grad_logprob) ||
      !optional_ok(grad_entropy) ||
      (grad_entropy.defined() && !is_row_vector(forward.entropy, rows, device)) ||
      (grad_dtype != at::kFloat && grad_dtype != at::kBFloat16 && grad_dtype != at::kHalf)) {
    throw Error(fmt::format(
        "logits log-prob kernel backward: expected contiguous fp32 [{}] row_max, log_sum, "
        "grad_logprob, grad_entropy (with the forward's entropy) on {} and an fp32, bf16 or fp16 "
        "gradient; got grad dtype {}",
        rows, device.str(), c10::toString(grad_dtype)));
  }
  at::Tensor grad = at::empty(logits.sizes(), logits.options().dtype(grad_dtype));
#ifdef VERLPP_CUDA_KERNELS
  LogitsLogProbBackwardParams p;
  p.logits = logits.data_ptr<float>();
  p.targets = targets.data_ptr<int64_t>();
  p.row_max = forward.row_max.data_ptr<float>();
  p.log_sum = forward.log_sum.data_ptr<float>();
  p.grad_logprob = optional(grad_logprob);
  p.grad_entropy = optional(grad_entropy);
  p.entropy = grad_entropy.defined() ? forward.entropy.data_ptr<float>() : nullptr;
  p.grad_logits = grad.data_ptr();
  p.grad_type = element_type(grad_dtype);
  p.rows = rows;
  p.vocab = logits.size(1);
  p.temperature = static_cast<float>(temperature);
  check_launch(launch_logits_logprob_backward(p, current_stream(device)), "logits log-prob");
#else
  (void)temperature;
#endif
  return grad;
}

}  // namespace verlpp::kernels
