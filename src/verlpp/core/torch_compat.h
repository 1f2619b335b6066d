// Differences between the LibTorch versions verlpp builds against, in one place: Debian's 1.13
// (CPU; CI and developer machines) and PyTorch 2.x's (CUDA; GPU machines). Version from
// TORCH_VERSION_MAJOR/MINOR in <torch/version.h>.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace verlpp::compat {

// True when this LibTorch has varlen flash attention (at::_flash_attention_forward, PyTorch
// >= 2.x). It runs only on CUDA tensors in bf16/fp16.
bool has_flash_attention_varlen();

// Causal attention over packed sequences with flash attention (Dao et al., FlashAttention-2).
// q [tokens, heads, d], k/v [tokens, kv_heads, d] (heads % kv_heads == 0: GQA without repeating
// KV), bf16/fp16 CUDA; cu_seqlens [sequences + 1] int32 on the same device (0, then cumulative
// lengths); max_seqlen the longest sequence; scale multiplies q·k (usually d^-0.5).
// Returns [tokens, heads, d]; differentiable. Throws verlpp::Error when this build lacks it.
at::Tensor flash_attention_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const at::Tensor& cu_seqlens, int64_t max_seqlen, double scale);

// The same when sequences continue after keys already computed (chunked prefill, prefix-cache
// hits): sequence s has queries cu_seqlens_q[s]..cu_seqlens_q[s+1] and keys/values
// cu_seqlens_k[s]..cu_seqlens_k[s+1] (its earlier tokens' first, then the queries' own), and its
// query i attends to keys [0, keys_s - queries_s + i] (flash attention's causal mask, aligned to
// the bottom right). cu_seqlens_q/k [S + 1] int32 on the device; max_seqlen_q/k their longest.
at::Tensor flash_attention_varlen(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                  const at::Tensor& cu_seqlens_q, const at::Tensor& cu_seqlens_k,
                                  int64_t max_seqlen_q, int64_t max_seqlen_k, double scale);

// One AdamW update of fp32 CUDA tensors in one fused kernel (at::_fused_adamw_, PyTorch >= 2.1;
// torch.optim.AdamW(fused=True) semantics: decoupled weight decay, bias correction with the step
// counts in `state_steps`, which the caller has already incremented). Returns false without
// touching anything when this build or these tensors (not CUDA) cannot use it.
bool fused_adamw(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                 at::TensorList exp_avg_sqs, at::TensorList state_steps, double lr, double beta1,
                 double beta2, double weight_decay, double eps);

// True when this LibTorch's flash attention takes per-sequence key counts (seqused_k, PyTorch >=
// 2.5), which flash_attention_kvcache needs.
bool has_flash_attention_kvcache();

// One query token per sequence against keys/values already in a cache, with flash attention and
// no copy of the cache: q [N, heads, d]; k_cache/v_cache [rows, kv_heads, d] (bf16/fp16 CUDA);
// sequence n reads rows [starts[n], starts[n] + lengths[n]). starts [N + 1] int32 (the last entry
// is any bound >= every row read, e.g. rows), lengths [N] int32, both on the device; max_length
// >= every length. Returns [N, heads, d]. Throws verlpp::Error when this build lacks it.
at::Tensor flash_attention_kvcache(const at::Tensor& q, const at::Tensor& k_cache,
                                   const at::Tensor& v_cache, const at::Tensor& starts,
                                   const at::Tensor& lengths, int64_t max_length, double scale);

// dst[i].copy_(src[i]) for every i (same shapes; dtypes may differ, e.g. bf16 gradients into fp32
// buffers). On CUDA with PyTorch >= 2.2 one multi-tensor kernel (at::_foreach_copy_), vectorised
// across dtypes too, where copy_'s bf16 -> fp32 cast kernel is not (about 0.5 TB/s on an H200);
// copy_ per tensor elsewhere.
void foreach_copy(at::TensorList dst, at::TensorList src);

// a [n, k] · b [k, m] with an fp32 result [n, m]. bf16/fp16 CUDA inputs on PyTorch >= 2.9: one
// GEMM that writes fp32 (at::mm with out_dtype; no rounding of the product to a's dtype and no
// cast kernel); otherwise the product in a's dtype converted to fp32.
at::Tensor mm_fp32(const at::Tensor& a, const at::Tensor& b);

// acc += a · b with acc fp32 [n, m], a [n, k], b [k, m]. bf16/fp16 CUDA inputs on PyTorch >= 2.10:
// one GEMM accumulating into acc (at::addmm with out_dtype, beta = 1); otherwise the product in a's
// dtype added to acc.
void addmm_fp32_(at::Tensor& acc, const at::Tensor& a, const at::Tensor& b);

// True when this LibTorch has the grouped GEMM at::_grouped_mm (PyTorch >= 2.9) and `x` is a
// CUDA tensor it serves (verlpp uses the per-expert loop on the CPU).
bool can_grouped_mm(const at::Tensor& x);
// True when this LibTorch has at::_grouped_mm at all (PyTorch >= 2.9).
bool has_grouped_mm();

// Rows [offs[g-1], offs[g]) of a [rows, k] times b[g] [k, n], for every group g, in one kernel
// (at::_grouped_mm): a [rows, k], b [groups, k, n] (a transposed view of [groups, n, k] is fine),
// offs [groups] int32 cumulative row ends on a's device, the last equal to rows. Returns
// [rows, n] in a's dtype; differentiable w.r.t. a and b. Throws verlpp::Error without it.
at::Tensor grouped_mm(const at::Tensor& a, const at::Tensor& b, const at::Tensor& offs);

// Intra-op CPU threads. LibTorch 1.13 starts with 1; verlpp uses every core unless told otherwise.
// n <= 0 means $OMP_NUM_THREADS when set to a positive number, else the number of hardware threads.
void set_cpu_threads(int n);

}  // namespace verlpp::compat
