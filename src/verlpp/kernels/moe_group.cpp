#include "verlpp/kernels/moe_group.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/moe_group_kernel.h"
#endif

namespace verlpp::kernels {

bool can_moe_group(const at::Tensor& experts, int64_t num_experts) {
#ifdef VERLPP_CUDA_KERNELS
  return experts.is_cuda() && experts.scalar_type() == at::kLong && experts.dim() == 2 &&
         experts.size(1) >= 1 && experts.numel() <= kMoeGroupMaxPairs && num_experts >= 1 &&
         num_experts <= kMoeGroupMaxExperts;
#else
  (void)experts;
  (void)num_experts;
  return false;
#endif
}

ExpertGroups moe_group(const at::Tensor& experts, int64_t num_experts) {
  if (!can_moe_group(experts, num_experts)) {
    throw Error(fmt::format(
        "moe_group kernel: needs a build with verlpp's CUDA kernels, CUDA int64 experts [T, k] "
        "of at most {} pairs and 1 <= num_experts <= 1024; got experts [{}] ({}, {}), "
        "num_experts {}",
        kMoeGroupMaxPairs, fmt::join(experts.sizes(), ", "), c10::toString(experts.scalar_type()),
        experts.device().str(), num_experts));
  }
  const at::Tensor e = experts.contiguous();
  const at::TensorOptions longs = e.options();
  ExpertGroups g{at::empty({num_experts}, longs.dtype(at::kInt)), at::empty({e.numel()}, longs),
                 at::zeros({e.numel()}, longs)};
#ifdef VERLPP_CUDA_KERNELS
  MoeGroupParams p;
  p.experts = e.data_ptr<int64_t>();
  p.offsets = g.offsets.data_ptr<int32_t>();
  p.row_of_pair = g.row_of_pair.data_ptr<int64_t>();
  p.source_token = g.source_token.data_ptr<int64_t>();
  p.pairs = e.numel();
  p.top_k = static_cast<int>(e.size(1));
  p.num_experts = static_cast<int>(num_experts);
  check_launch(launch_moe_group(p, current_stream(e.device())), "moe_group");
#endif
  return g;
}

}  // namespace verlpp::kernels
