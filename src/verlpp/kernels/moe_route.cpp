#include "verlpp/kernels/moe_route.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/moe_route_kernel.h"
#endif

namespace verlpp::kernels {

bool can_moe_route(const at::Tensor& logits, int64_t top_k) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = logits.scalar_type();
  return logits.is_cuda() && (t == at::kFloat || t == at::kBFloat16 || t == at::kHalf) &&
         logits.dim() == 2 && logits.size(1) >= 1 && logits.size(1) <= kMoeRouteMaxExperts &&
         top_k >= 1 && top_k <= std::min(logits.size(1), kMoeRouteMaxTopK);
#else
  (void)logits;
  (void)top_k;
  return false;
#endif
}

MoeRoute moe_route(const at::Tensor& logits, int64_t top_k, bool normalize) {
  if (!can_moe_route(logits, top_k)) {
    throw Error(fmt::format(
        "moe_route kernel: needs a build with verlpp's CUDA kernels, CUDA router logits [T, E] "
        "of fp32, bf16 or fp16 with E <= 1024, and 1 <= top_k <= min(E, 32); got logits [{}] "
        "({}, {}), top_k {}",
        fmt::join(logits.sizes(), ", "), c10::toString(logits.scalar_type()), logits.device().str(),
        top_k));
  }
  const at::Tensor l = logits.contiguous();
  MoeRoute r{at::empty({l.size(0), top_k}, l.options()),
             at::empty({l.size(0), top_k}, l.options().dtype(at::kLong))};
#ifdef VERLPP_CUDA_KERNELS
  MoeRouteParams p;
  p.logits = l.data_ptr();
  p.weights = r.weights.data_ptr();
  p.experts = r.experts.data_ptr<int64_t>();
  p.tokens = l.size(0);
  p.num_experts = static_cast<int>(l.size(1));
  p.top_k = static_cast<int>(top_k);
  p.normalize = normalize;
  p.dtype = element_type(l.scalar_type());
  check_launch(launch_moe_route(p, current_stream(l.device())), "moe_route");
#else
  (void)normalize;
#endif
  return r;
}

}  // namespace verlpp::kernels
