#include "verlpp/kernels/delta_rule_scan.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/delta_rule_scan_kernel.h"
#include "verlpp/kernels/launch.h"
#endif

namespace verlpp::kernels {

namespace {

bool is_input(const at::Tensor& t, at::IntArrayRef sizes, const at::Device& device,
              at::ScalarType dtype = at::kFloat) {
  return t.defined() && t.scalar_type() == dtype && t.is_contiguous() && t.device() == device &&
         t.sizes() == sizes;
}

}  // namespace

bool can_delta_rule_scan(const at::Tensor& state, int64_t chunk) {
#ifdef VERLPP_CUDA_KERNELS
  return state.is_cuda() && state.dim() == 4 && state.scalar_type() == at::kFloat &&
         state.is_contiguous() && chunk <= 64 && state.size(0) <= 65535 &&
         delta_rule_scan_supported(static_cast<int>(chunk), static_cast<int>(state.size(2)),
                                   static_cast<int>(state.size(3)));
#else
  (void)state;
  (void)chunk;
  return false;
#endif
}

DeltaRuleScanResult delta_rule_scan(const at::Tensor& base, const at::Tensor& a1,
                                    const at::Tensor& a2, const at::Tensor& add,
                                    const at::Tensor& decay, at::Tensor& state,
                                    const at::Tensor& step_offsets, const at::Tensor& chunk_counts,
                                    double sign1, double sign2, bool reverse) {
  const int64_t C = base.dim() == 4 ? base.size(2) : 0;
  if (!can_delta_rule_scan(state, C)) {
    throw Error(fmt::format(
        "delta rule scan kernel: needs a build with verlpp's CUDA kernels, a contiguous fp32 CUDA "
        "state [seqs <= 65535, heads, dk <= 256, dv] and chunks of <= 64 tokens; got state [{}] "
        "({}, {}), base [{}]",
        fmt::join(state.sizes(), ", "), c10::toString(state.scalar_type()), state.device().str(),
        fmt::join(base.sizes(), ", ")));
  }
  const int64_t S = state.size(0), H = state.size(1), dk = state.size(2), dv = state.size(3);
  const int64_t N = base.size(0);
  const at::Device device = state.device();
  if (!is_input(base, {N, H, C, dv}, device) || !is_input(a1, {N, H, C, dk}, device) ||
      !is_input(a2, {N, H, C, dk}, device) ||
      (add.defined() && !is_input(add, {N, H, dk, dv}, device)) ||
      !is_input(decay, {N, H}, device) ||
      !is_input(step_offsets, {step_offsets.numel()}, device, at::kLong) ||
      !is_input(chunk_counts, {S}, device, at::kLong)) {
    throw Error(fmt::format(
        "delta rule scan kernel: expected contiguous fp32 base [N, {}, {}, {}], a1, a2 [N, {}, {}, "
        "{}], add [N, {}, {}, {}] or none, decay [N, {}] and int64 step_offsets [steps], "
        "chunk_counts [{}] on {}; got base [{}], a1 [{}], a2 [{}], decay [{}], chunk_counts [{}]",
        H, C, dv, H, C, dk, H, dk, dv, H, S, device.str(), fmt::join(base.sizes(), ", "),
        fmt::join(a1.sizes(), ", "), fmt::join(a2.sizes(), ", "), fmt::join(decay.sizes(), ", "),
        fmt::join(chunk_counts.sizes(), ", ")));
  }
  DeltaRuleScanResult out{at::empty({N, H, dk, dv}, base.options()), at::empty_like(base)};
#ifdef VERLPP_CUDA_KERNELS
  DeltaRuleScanParams p;
  p.base = base.data_ptr<float>();
  p.a1 = a1.data_ptr<float>();
  p.a2 = a2.data_ptr<float>();
  p.add = add.defined() ? add.data_ptr<float>() : nullptr;
  p.decay = decay.data_ptr<float>();
  p.state = state.data_ptr<float>();
  p.before = out.before.data_ptr<float>();
  p.x = out.x.data_ptr<float>();
  p.step_offsets = step_offsets.data_ptr<int64_t>();
  p.chunk_counts = chunk_counts.data_ptr<int64_t>();
  p.seqs = static_cast<int>(S);
  p.heads = static_cast<int>(H);
  p.chunk = static_cast<int>(C);
  p.dk = static_cast<int>(dk);
  p.dv = static_cast<int>(dv);
  p.sign1 = static_cast<float>(sign1);
  p.sign2 = static_cast<float>(sign2);
  p.reverse = reverse;
  check_launch(launch_delta_rule_scan(p, current_stream(device)), "delta rule scan");
#else
  (void)sign1;
  (void)sign2;
  (void)reverse;
#endif
  return out;
}

}  // namespace verlpp::kernels
