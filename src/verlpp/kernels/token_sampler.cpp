#include "verlpp/kernels/token_sampler.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/token_sampler_kernel.h"
#endif

namespace verlpp::kernels {

bool can_sample_tokens(const at::Tensor& logits, const at::Tensor& uniforms) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = logits.scalar_type();
  return logits.is_cuda() && logits.dim() == 2 &&
         (t == at::kFloat || t == at::kBFloat16 || t == at::kHalf) && logits.size(1) >= 1 &&
         logits.size(1) <= kTokenSamplerMaxVocab &&
         (logits.size(1) == 1 || logits.stride(1) == 1) && logits.size(0) <= 2147483647 &&
         uniforms.is_cuda() && uniforms.device() == logits.device() &&
         uniforms.scalar_type() == at::kDouble && uniforms.dim() == 1 &&
         uniforms.size(0) == logits.size(0) && uniforms.is_contiguous();
#else
  (void)logits, (void)uniforms;
  return false;
#endif
}

KernelSample sample_tokens(const at::Tensor& logits, double temperature,
                           const at::Tensor& uniforms) {
  if (!can_sample_tokens(logits, uniforms) || !(temperature > 0.0)) {
    throw Error(fmt::format(
        "token sampler kernel: needs a build with verlpp's CUDA kernels, CUDA logits [rows, vocab] "
        "(fp32, bf16 or fp16; vocab <= 8388608), fp64 uniforms [rows] on the same device and a "
        "temperature > 0; got logits [{}] ({}, {}), uniforms [{}] ({}), temperature {}",
        fmt::join(logits.sizes(), ", "), c10::toString(logits.scalar_type()), logits.device().str(),
        fmt::join(uniforms.sizes(), ", "), c10::toString(uniforms.scalar_type()), temperature));
  }
  KernelSample out{at::empty({logits.size(0)}, logits.options().dtype(at::kLong)),
                   at::empty({logits.size(0)}, logits.options().dtype(at::kFloat))};
#ifdef VERLPP_CUDA_KERNELS
  TokenSamplerParams p;
  p.logits = logits.data_ptr();
  p.uniforms = uniforms.data_ptr<double>();
  p.tokens = out.tokens.data_ptr<int64_t>();
  p.logprobs = out.logprobs.data_ptr<float>();
  p.rows = logits.size(0);
  p.vocab = logits.size(1);
  p.row_stride = logits.stride(0);
  // ATen divides a float tensor by a scalar as a product with its fp32 reciprocal.
  p.inverse_temperature = 1.0f / static_cast<float>(temperature);
  p.dtype = element_type(logits.scalar_type());
  check_launch(launch_token_sampler(p, current_stream(logits.device())), "token sampler");
#endif
  return out;
}

}  // namespace verlpp::kernels
