#include "verlpp/kernels/rope_cache_write.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "verlpp/core/error.h"

#ifdef VERLPP_CUDA_KERNELS
#include "verlpp/kernels/launch.h"
#include "verlpp/kernels/rope_cache_write_kernel.h"
#endif

namespace verlpp::kernels {

namespace {

std::string weight_sizes(const at::Tensor& w) {
  return w.defined() ? fmt::format("{}", fmt::join(w.sizes(), ", ")) : "none";
}

#ifdef VERLPP_CUDA_KERNELS
bool head_tensor(const at::Tensor& x, const at::Tensor& q, int64_t heads) {
  return x.dim() == 3 && x.size(0) == q.size(0) && x.size(1) == heads && x.size(2) == q.size(2) &&
         (x.size(2) <= 1 || x.stride(2) == 1);
}

bool same_kind(const at::Tensor& x, const at::Tensor& q) {
  return x.is_cuda() && x.device() == q.device() && x.scalar_type() == q.scalar_type();
}

bool shapes_fit(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                const at::Tensor& cos, const at::Tensor& sin_signed, const at::Tensor& rows,
                const at::Tensor& key_cache, const at::Tensor& value_cache) {
  if (q.dim() != 3 || k.dim() != 3 || cos.dim() != 2) return false;
  const int64_t T = q.size(0), D = q.size(2), r = cos.size(1), kv_heads = k.size(1);
  return head_tensor(q, q, q.size(1)) && head_tensor(k, q, kv_heads) &&
         head_tensor(v, q, kv_heads) && cos.size(0) == T && r % 2 == 0 && r <= D &&
         sin_signed.sizes() == cos.sizes() && cos.is_contiguous() && sin_signed.is_contiguous() &&
         rows.dim() == 1 && rows.size(0) == T && rows.scalar_type() == at::kLong &&
         rows.is_contiguous() && key_cache.dim() == 3 && key_cache.size(1) == kv_heads &&
         key_cache.size(2) == D && key_cache.is_contiguous() &&
         value_cache.sizes() == key_cache.sizes() && value_cache.is_contiguous() &&
         q.size(1) <= 65536 && kv_heads <= 65536 && D <= kRopeCacheWriteMaxHeadDim;
}

bool norm_weight(const at::Tensor& w, const at::Tensor& q) {
  return w.dim() == 1 && w.size(0) == q.size(2) && w.is_contiguous() && same_kind(w, q);
}

bool norm_fits(const QkNorm& norm, const at::Tensor& q) {
  if (!norm.q_weight.defined() && !norm.k_weight.defined()) return true;
  return norm.q_weight.defined() && norm.k_weight.defined() && norm_weight(norm.q_weight, q) &&
         norm_weight(norm.k_weight, q);
}
#endif

}  // namespace

bool can_rope_cache_write(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& cos, const at::Tensor& sin_signed,
                          const at::Tensor& rows, const at::Tensor& key_cache,
                          const at::Tensor& value_cache, const QkNorm& norm) {
#ifdef VERLPP_CUDA_KERNELS
  const at::ScalarType t = q.scalar_type();
  return q.is_cuda() && (t == at::kFloat || t == at::kBFloat16 || t == at::kHalf) &&
         same_kind(k, q) && same_kind(v, q) && same_kind(cos, q) && same_kind(sin_signed, q) &&
         same_kind(key_cache, q) && same_kind(value_cache, q) && rows.is_cuda() &&
         rows.device() == q.device() &&
         shapes_fit(q, k, v, cos, sin_signed, rows, key_cache, value_cache) && norm_fits(norm, q);
#else
  (void)q, (void)k, (void)v, (void)cos, (void)sin_signed, (void)rows, (void)key_cache,
      (void)value_cache, (void)norm;
  return false;
#endif
}

at::Tensor rope_cache_write(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& cos, const at::Tensor& sin_signed,
                            const at::Tensor& rows, const at::Tensor& key_cache,
                            const at::Tensor& value_cache, const QkNorm& norm) {
  if (!can_rope_cache_write(q, k, v, cos, sin_signed, rows, key_cache, value_cache, norm)) {
    throw Error(fmt::format(
        "rope cache write kernel: needs a build with verlpp's CUDA kernels and CUDA q [T, Hq, D <= "
        "1024], k/v [T, Hkv, D], cos/sin [T, r <= D], int64 rows [T], caches [R, Hkv, D] and "
        "both or neither q/k norm weights [D], of one dtype (fp32, bf16 or fp16); got q [{}] ({}, "
        "{}), k [{}], cos [{}], cache [{}] ({}), norm weights [{}] and [{}]",
        fmt::join(q.sizes(), ", "), c10::toString(q.scalar_type()), q.device().str(),
        fmt::join(k.sizes(), ", "), fmt::join(cos.sizes(), ", "),
        fmt::join(key_cache.sizes(), ", "), c10::toString(key_cache.scalar_type()),
        weight_sizes(norm.q_weight), weight_sizes(norm.k_weight)));
  }
  at::Tensor q_out = at::empty(q.sizes(), q.options().memory_format(at::MemoryFormat::Contiguous));
#ifdef VERLPP_CUDA_KERNELS
  RopeCacheWriteParams p;
  p.q = q.data_ptr();
  p.k = k.data_ptr();
  p.v = v.data_ptr();
  p.cos = cos.data_ptr();
  p.sin_signed = sin_signed.data_ptr();
  p.rows = rows.data_ptr<int64_t>();
  p.q_norm_weight = norm.q_weight.defined() ? norm.q_weight.data_ptr() : nullptr;
  p.k_norm_weight = norm.k_weight.defined() ? norm.k_weight.data_ptr() : nullptr;
  p.eps = static_cast<float>(norm.eps);
  p.q_out = q_out.data_ptr();
  p.key_cache = key_cache.data_ptr();
  p.value_cache = value_cache.data_ptr();
  p.tokens = q.size(0);
  p.q_stride_t = q.stride(0);
  p.q_stride_h = q.stride(1);
  p.k_stride_t = k.stride(0);
  p.k_stride_h = k.stride(1);
  p.v_stride_t = v.stride(0);
  p.v_stride_h = v.stride(1);
  p.q_heads = static_cast<int>(q.size(1));
  p.kv_heads = static_cast<int>(k.size(1));
  p.head_dim = static_cast<int>(q.size(2));
  p.rotary = static_cast<int>(cos.size(1));
  p.dtype = element_type(q.scalar_type());
  check_launch(launch_rope_cache_write(p, current_stream(q.device())), "rope cache write");
#endif
  return q_out;
}

}  // namespace verlpp::kernels
