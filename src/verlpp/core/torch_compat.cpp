#include "verlpp/core/torch_compat.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/version.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <tuple>

#include "verlpp/core/error.h"

#if TORCH_VERSION_MAJOR >= 2
#include <ATen/ops/_flash_attention_forward.h>
#include <ATen/ops/_fused_adamw.h>
#define VERLPP_TORCH2 1
#else
#define VERLPP_TORCH2 0
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
#define VERLPP_HAS_FLASH_KVCACHE 1
#else
#define VERLPP_HAS_FLASH_KVCACHE 0
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2)
#include <ATen/ops/_foreach_copy.h>
#define VERLPP_HAS_FOREACH_COPY 1
#else
#define VERLPP_HAS_FOREACH_COPY 0
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)
#define VERLPP_HAS_MM_OUT_DTYPE 1
#else
#define VERLPP_HAS_MM_OUT_DTYPE 0
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)
#include <ATen/ops/_grouped_mm.h>
#define VERLPP_HAS_GROUPED_MM 1
#else
#define VERLPP_HAS_GROUPED_MM 0
#endif
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 10)
#define VERLPP_HAS_ADDMM_OUT_DTYPE 1
#else
#define VERLPP_HAS_ADDMM_OUT_DTYPE 0
#endif

namespace verlpp::compat {

bool has_flash_attention_varlen() { return VERLPP_TORCH2 != 0; }

at::Tensor flash_attention_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const at::Tensor& cu_seqlens, int64_t max_seqlen, double scale) {
  return flash_attention_varlen(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen, scale);
}

at::Tensor flash_attention_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                                  int64_t max_seqlen_q, int64_t max_seqlen_k, double scale) {
#if VERLPP_TORCH2
  auto result = at::_flash_attention_forward(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                             max_seqlen_k, 0.0, /*is_causal=*/true,
                                             /*return_debug_mask=*/false, scale);
  return std::get<0>(result);
#else
  (void)q, (void)k, (void)v, (void)cu_seqlens_q, (void)cu_seqlens_k, (void)max_seqlen_q,
      (void)max_seqlen_k, (void)scale;
  throw Error("flash attention needs LibTorch >= 2.0 with CUDA; this build has " TORCH_VERSION);
#endif
}

bool fused_adamw(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                 at::TensorList exp_avg_sqs, at::TensorList state_steps, double lr, double beta1,
                 double beta2, double weight_decay, double eps) {
#if VERLPP_TORCH2
  if (params.empty() || !params[0].is_cuda()) return false;
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, /*max_exp_avg_sqs=*/{}, state_steps, lr,
                    beta1, beta2, weight_decay, eps, /*amsgrad=*/false, /*maximize=*/false);
  return true;
#else
  (void)params, (void)grads, (void)exp_avgs, (void)exp_avg_sqs, (void)state_steps, (void)lr,
      (void)beta1, (void)beta2, (void)weight_decay, (void)eps;
  return false;
#endif
}

bool has_flash_attention_kvcache() { return VERLPP_HAS_FLASH_KVCACHE != 0; }

at::Tensor flash_attention_kvcache(const at::Tensor& q, const at::Tensor& k_cache,
                                   const at::Tensor& v_cache, const at::Tensor& starts,
                                   const at::Tensor& lengths, int64_t max_length, double scale) {
#if VERLPP_HAS_FLASH_KVCACHE
  const int64_t n = q.size(0);
  const at::Tensor cu_q = at::arange(n + 1, starts.options());
  auto result = at::_flash_attention_forward(q, k_cache, v_cache, cu_q, starts, 1, max_length, 0.0,
                                             /*is_causal=*/false, /*return_debug_mask=*/false,
                                             scale, std::nullopt, std::nullopt, lengths);
  return std::get<0>(result);
#else
  (void)q, (void)k_cache, (void)v_cache, (void)starts, (void)lengths, (void)max_length, (void)scale;
  throw Error(
      "flash attention over a KV cache needs LibTorch >= 2.5 with CUDA; this build "
      "has " TORCH_VERSION);
#endif
}

void foreach_copy(at::TensorList dst, at::TensorList src) {
  if (dst.size() != src.size()) throw Error("foreach_copy: the two tensor lists differ in length");
#if VERLPP_HAS_FOREACH_COPY
  if (!dst.empty() && dst[0].is_cuda()) {
    at::_foreach_copy_(dst, src);
    return;
  }
#endif
  for (std::size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
}

#if VERLPP_HAS_MM_OUT_DTYPE
namespace {

// bf16/fp16 CUDA operands of one dtype: what cuBLAS multiplies with an fp32 result.
bool low_precision_cuda_pair(const at::Tensor& a, const at::Tensor& b) {
  const auto t = a.scalar_type();
  return a.is_cuda() && (t == at::kBFloat16 || t == at::kHalf) && b.scalar_type() == t;
}

}  // namespace
#endif

at::Tensor mm_fp32(const at::Tensor& a, const at::Tensor& b) {
#if VERLPP_HAS_MM_OUT_DTYPE
  if (low_precision_cuda_pair(a, b)) return at::mm(a, b, at::kFloat);
#endif
  return at::mm(a, b).to(at::kFloat);
}

void addmm_fp32_(at::Tensor& acc, const at::Tensor& a, const at::Tensor& b) {
#if VERLPP_HAS_ADDMM_OUT_DTYPE
  if (low_precision_cuda_pair(a, b) && acc.scalar_type() == at::kFloat) {
    at::addmm_out(acc, acc, a, b, at::kFloat);
    return;
  }
#endif
  acc.add_(at::mm(a, b));
}

bool can_grouped_mm(const at::Tensor& x) { return has_grouped_mm() && x.is_cuda(); }

bool has_grouped_mm() { return VERLPP_HAS_GROUPED_MM != 0; }

at::Tensor grouped_mm(const at::Tensor& a, const at::Tensor& b, const at::Tensor& offs) {
#if VERLPP_HAS_GROUPED_MM
  return at::_grouped_mm(a, b, offs);
#else
  (void)a;
  (void)b;
  (void)offs;
  throw Error("grouped GEMM needs LibTorch >= 2.9; this build has " TORCH_VERSION);
#endif
}

void set_cpu_threads(int n) {
  if (n <= 0) {
    const char* omp = std::getenv("OMP_NUM_THREADS");
    n = omp != nullptr ? std::atoi(omp) : 0;
  }
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
}

}  // namespace verlpp::compat
