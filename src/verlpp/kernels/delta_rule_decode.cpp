#include "verlpp/kernels/delta_rule_decode.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include "verlpp/kernels/delta_rule_decode_kernel.h"
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
  const cudaError_t status =
      launch_delta_rule_decode(p, c10::cuda::getCurrentCUDAStream(device.index()).stream());
  if (status != cudaSuccess) {
    throw Error(std::string("delta rule decode kernel: launch failed: ") +
                cudaGetErrorString(status));
  }
#endif
  return out;
}

}  // namespace verlpp::kernels
