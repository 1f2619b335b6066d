#include "verlpp/kernels/delta_rule_chunk_terms.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/delta_rule_chunk_terms_kernel.h"
#include "verlpp/kernels/launch.h"
#endif

namespace verlpp::kernels {

namespace {

bool is_input(const at::Tensor& t, at::IntArrayRef sizes, const at::Device& device) {
  return t.defined() && t.scalar_type() == at::kFloat && t.is_contiguous() &&
         t.device() == device && t.sizes() == sizes;
}

}  // namespace

bool can_delta_rule_chunk_terms(const at::Tensor& q, const at::Tensor& v) {
#ifdef VERLPP_CUDA_KERNELS
  return q.is_cuda() && q.dim() == 4 && v.dim() == 4 &&
         delta_rule_chunk_terms_supported(static_cast<int>(q.size(2)), static_cast<int>(q.size(3)),
                                          static_cast<int>(v.size(3)));
#else
  (void)q;
  (void)v;
  return false;
#endif
}

DeltaRuleChunkTerms delta_rule_chunk_terms(const at::Tensor& q, const at::Tensor& k,
                                           const at::Tensor& v, const at::Tensor& g,
                                           const at::Tensor& beta, bool backward_terms) {
  if (!can_delta_rule_chunk_terms(q, v)) {
    throw Error(fmt::format(
        "delta rule chunk terms kernel: needs a build with verlpp's CUDA kernels and CUDA q [N, "
        "H, C <= 64, dk <= 256], v [N, H, C, dv <= 256]; got q [{}] ({}), v [{}]",
        fmt::join(q.sizes(), ", "), q.device().str(), fmt::join(v.sizes(), ", ")));
  }
  const int64_t N = q.size(0), H = q.size(1), C = q.size(2), dk = q.size(3), dv = v.size(3);
  const at::Device device = q.device();
  if (!is_input(q, {N, H, C, dk}, device) || !is_input(k, {N, H, C, dk}, device) ||
      !is_input(v, {N, H, C, dv}, device) || !is_input(g, {N, H, C}, device) ||
      !is_input(beta, {N, H, C}, device)) {
    throw Error(fmt::format(
        "delta rule chunk terms kernel: expected contiguous fp32 q, k [{}, {}, {}, {}], v [{}, {}, "
        "{}, dv], g, beta [{}, {}, {}] on {}; got q [{}], k [{}], v [{}], g [{}], beta [{}]",
        N, H, C, dk, N, H, C, N, H, C, device.str(), fmt::join(q.sizes(), ", "),
        fmt::join(k.sizes(), ", "), fmt::join(v.sizes(), ", "), fmt::join(g.sizes(), ", "),
        fmt::join(beta.sizes(), ", ")));
  }
  DeltaRuleChunkTerms t;
  t.egamma = at::empty({N, H, C}, q.options());
  t.tail = at::empty({N, H, C}, q.options());
  t.last_decay = at::empty({N, H}, q.options());
  t.qd = at::empty_like(q);
  t.kd = at::empty_like(q);
  t.w = at::empty_like(q);
  t.u = at::empty_like(v);
  t.p = at::empty({N, H, C, C}, q.options());
  if (backward_terms) {
    t.decay = at::empty_like(t.p);
    t.kk = at::empty_like(t.p);
    t.qk = at::empty_like(t.p);
    t.inverse = at::empty_like(t.p);
  }
#ifdef VERLPP_CUDA_KERNELS
  DeltaRuleChunkTermsParams p;
  p.q = q.data_ptr<float>();
  p.k = k.data_ptr<float>();
  p.v = v.data_ptr<float>();
  p.g = g.data_ptr<float>();
  p.beta = beta.data_ptr<float>();
  p.egamma = t.egamma.data_ptr<float>();
  p.tail = t.tail.data_ptr<float>();
  p.last_decay = t.last_decay.data_ptr<float>();
  p.qd = t.qd.data_ptr<float>();
  p.kd = t.kd.data_ptr<float>();
  p.p = t.p.data_ptr<float>();
  p.u = t.u.data_ptr<float>();
  p.w = t.w.data_ptr<float>();
  if (backward_terms) {
    p.decay = t.decay.data_ptr<float>();
    p.kk = t.kk.data_ptr<float>();
    p.qk = t.qk.data_ptr<float>();
    p.inverse = t.inverse.data_ptr<float>();
  }
  p.chunks = N;
  p.heads = static_cast<int>(H);
  p.chunk = static_cast<int>(C);
  p.dk = static_cast<int>(dk);
  p.dv = static_cast<int>(dv);
  check_launch(launch_delta_rule_chunk_terms(p, current_stream(device)), "delta rule chunk terms");
#endif
  return t;
}

}  // namespace verlpp::kernels
