#include "verlpp/kernels/moe_combine.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/moe_combine_kernel.h"
#endif

namespace verlpp::kernels {

bool can_moe_combine(const at::Tensor& expert_out, const at::Tensor& weights,
                     const at::Tensor& row_of_pair) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = expert_out.scalar_type();
  return expert_out.is_cuda() && (t == at::kFloat || t == at::kBFloat16 || t == at::kHalf) &&
         expert_out.dim() == 2 && weights.dim() == 2 && weights.size(1) >= 1 &&
         weights.scalar_type() == t && weights.device() == expert_out.device() &&
         row_of_pair.scalar_type() == at::kLong && row_of_pair.device() == expert_out.device() &&
         row_of_pair.numel() == weights.numel();
#else
  (void)expert_out;
  (void)weights;
  (void)row_of_pair;
  return false;
#endif
}

at::Tensor moe_combine(const at::Tensor& expert_out, const at::Tensor& weights,
                       const at::Tensor& row_of_pair) {
  if (!can_moe_combine(expert_out, weights, row_of_pair)) {
    throw Error(fmt::format(
        "moe_combine kernel: needs a build with verlpp's CUDA kernels and CUDA expert_out [rows, "
        "H], weights [T, k] of one dtype (fp32, bf16 or fp16) and int64 row_of_pair [T k] on one "
        "device; got expert_out [{}] ({}, {}), weights [{}] ({}, {}), row_of_pair [{}] ({}, {})",
        fmt::join(expert_out.sizes(), ", "), c10::toString(expert_out.scalar_type()),
        expert_out.device().str(), fmt::join(weights.sizes(), ", "),
        c10::toString(weights.scalar_type()), weights.device().str(),
        fmt::join(row_of_pair.sizes(), ", "), c10::toString(row_of_pair.scalar_type()),
        row_of_pair.device().str()));
  }
  const at::Tensor y = expert_out.contiguous();
  const at::Tensor w = weights.contiguous();
  const at::Tensor rows = row_of_pair.contiguous();
  at::Tensor out = at::empty({w.size(0), y.size(1)}, y.options());
#ifdef VERLPP_CUDA_KERNELS
  MoeCombineParams p;
  p.expert_out = y.data_ptr();
  p.weights = w.data_ptr();
  p.row_of_pair = rows.data_ptr<int64_t>();
  p.out = out.data_ptr();
  p.tokens = w.size(0);
  p.hidden = y.size(1);
  p.top_k = static_cast<int>(w.size(1));
  p.dtype = element_type(y.scalar_type());
  check_launch(launch_moe_combine(p, current_stream(y.device())), "moe_combine");
#endif
  return out;
}

}  // namespace verlpp::kernels
