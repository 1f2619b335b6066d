#include "verlpp/kernels/delta_rule_decode.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/delta_rule_decode_kernel.h"
#include "verlpp/kernels/launch.h"
#endif

namespace verlpp::kernels {

namespace {

// Contiguous fp32 with these sizes on `device`.
bool is_input(const at::Tensor& t, at::IntArrayRef sizes, const at::Device& device) {
  return t.defined() && t.scalar_type() == at::kFloat && t.is_contiguous() &&
         t.device() == device && t.sizes() == sizes;
}

}  // namespace

bool can_delta_rule_decode(const at::Tensor& state) {
#ifdef VERLPP_CUDA_KERNELS
  return state.is_cuda() && state.dim() == 4 && state.scalar_type() == at::kFloat &&
         state.is_contiguous() &&
         delta_rule_decode_supported(static_cast<int>(state.size(2)),
                                     static_cast<int>(state.size(3)));
#else
  (void)state;
  return false;
#endif
}

at::Tensor delta_rule_decode(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             const at::Tensor& g, const at::Tensor& beta, at::Tensor& state,
                             const at::Tensor& slots) {
  if (!can_delta_rule_decode(state)) {
    throw Error(fmt::format(
        "delta rule decode kernel: needs a build with verlpp's CUDA kernels and a contiguous fp32 "
        "CUDA state [slots, heads, dk <= 256, dv <= 1024]; got [{}] ({}, {})",
        fmt::join(state.sizes(), ", "), c10::toString(state.scalar_type()), state.device().str()));
  }
  const int64_t N = q.size(0), H = state.size(1), dk = state.size(2), dv = state.size(3);
  const at::Device device = state.device();
  if (!is_input(q, {N, H, dk}, device) || !is_input(k, {N, H, dk}, device) ||
      !is_input(v, {N, H, dv}, device) || !is_input(g, {N, H}, device) ||
      !is_input(beta, {N, H}, device) || slots.scalar_type() != at::kLong ||
      slots.device() != device || slots.sizes() != at::IntArrayRef({N}) || !slots.is_contiguous() ||
      N > 65535) {
    throw Error(fmt::format(
        "delta rule decode kernel: expected contiguous fp32 q, k [N, {}, {}], v [N, {}, {}], g, "
        "beta "
        "[N, {}] and int64 slots [N] (N <= 65535) on {}; got q [{}], k [{}], v [{}], g [{}], "
        "beta [{}], slots [{}]",
        H, dk, H, dv, H, device.str(), fmt::join(q.sizes(), ", "), fmt::join(k.sizes(), ", "),
        fmt::join(v.sizes(), ", "), fmt::join(g.sizes(), ", "), fmt::join(beta.sizes(), ", "),
        fmt::join(slots.sizes(), ", ")));
  }
  at::Tensor out = at::empty({N, H, dv}, q.options());
#ifdef VERLPP_CUDA_KERNELS
  DeltaRuleDecodeParams p;
  p.q = q.data_ptr<float>();
  p.k = k.data_ptr<float>();
  p.v = v.data_ptr<float>();
  p.g = g.data_ptr<float>();
  p.beta = beta.data_ptr<float>();
  p.state = state.data_ptr<float>();
  p.slots = slots.data_ptr<int64_t>();
  p.out = out.data_ptr<float>();
  p.num_seqs = static_cast<int>(N);
  p.heads = static_cast<int>(H);
  p.dk = static_cast<int>(dk);
  p.dv = static_cast<int>(dv);
  check_launch(launch_delta_rule_decode(p, current_stream(device)), "delta rule decode");
#endif
  return out;
}

bool can_delta_rule_decode_inputs(const at::Tensor& conv, const at::Tensor& a, const at::Tensor& b,
                                  const at::Tensor& A_log, const at::Tensor& dt_bias) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = conv.scalar_type();
  bool same = t == at::kFloat || t == at::kBFloat16 || t == at::kHalf;
  for (const at::Tensor* x : {&conv, &a, &b, &A_log, &dt_bias}) {
    same = same && x->is_cuda() && x->scalar_type() == t && x->is_contiguous() &&
           x->device() == conv.device();
  }
  return same && conv.dim() == 2 && a.dim() == 2 && b.sizes() == a.sizes() &&
         a.size(0) == conv.size(0) && A_log.dim() == 1 && A_log.size(0) == a.size(1) &&
         dt_bias.sizes() == A_log.sizes() && conv.size(0) <= 65535;
#else
  (void)conv;
  (void)a;
  (void)b;
  (void)A_log;
  (void)dt_bias;
  return false;
#endif
}

DeltaRuleDecodeInputs delta_rule_decode_inputs(const at::Tensor& conv, const at::Tensor& a,
                                               const at::Tensor& b, const at::Tensor& A_log,
                                               const at::Tensor& dt_bias, int64_t key_heads,
                                               int64_t dk, int64_t dv) {
  const int64_t H = a.dim() == 2 ? a.size(1) : 0;
  if (!can_delta_rule_decode_inputs(conv, a, b, A_log, dt_bias) || key_heads < 1 ||
      H % key_heads != 0 || conv.size(1) != 2 * key_heads * dk + H * dv) {
    throw Error(fmt::format(
        "delta rule decode inputs kernel: needs a build with verlpp's CUDA kernels and contiguous "
        "CUDA conv [N, 2 * {} * {} + value_heads * {}], a, b [N, value_heads], A_log, dt_bias "
        "[value_heads] of one dtype (fp32, bf16, fp16), value_heads a multiple of {}; got conv "
        "[{}] ({}), a [{}], b [{}], A_log [{}] ({}), dt_bias [{}]",
        key_heads, dk, dv, key_heads, fmt::join(conv.sizes(), ", "),
        c10::toString(conv.scalar_type()), fmt::join(a.sizes(), ", "), fmt::join(b.sizes(), ", "),
        fmt::join(A_log.sizes(), ", "), c10::toString(A_log.scalar_type()),
        fmt::join(dt_bias.sizes(), ", ")));
  }
  const int64_t N = conv.size(0);
  const auto f32 = conv.options().dtype(at::kFloat);
  DeltaRuleDecodeInputs in{at::empty({N, H, dk}, f32), at::empty({N, H, dk}, f32),
                           at::empty({N, H, dv}, f32), at::empty({N, H}, f32),
                           at::empty({N, H}, f32)};
#ifdef VERLPP_CUDA_KERNELS
  DeltaRuleDecodeInputsParams p;
  p.conv = conv.data_ptr();
  p.a = a.data_ptr();
  p.b = b.data_ptr();
  p.A_log = A_log.data_ptr();
  p.dt_bias = dt_bias.data_ptr();
  p.q = in.q.data_ptr<float>();
  p.k = in.k.data_ptr<float>();
  p.v = in.v.data_ptr<float>();
  p.g = in.g.data_ptr<float>();
  p.beta = in.beta.data_ptr<float>();
  p.num_seqs = static_cast<int>(N);
  p.key_heads = static_cast<int>(key_heads);
  p.value_heads = static_cast<int>(H);
  p.dk = static_cast<int>(dk);
  p.dv = static_cast<int>(dv);
  p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(dk)));
  p.dtype = element_type(conv.scalar_type());
  check_launch(launch_delta_rule_decode_inputs(p, current_stream(conv.device())),
               "delta rule decode inputs");
#endif
  return in;
}

}  // namespace verlpp::kernels
