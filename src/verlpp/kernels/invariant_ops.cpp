#include "verlpp/kernels/invariant_ops.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/kernels/decode_attention.h"
#include "verlpp/kernels/logits_logprob.h"

namespace verlpp::kernels {

namespace {

constexpr int64_t kPartials = 8;
constexpr int64_t kMaxKernelQueries = 65535;  // the decode kernel's grid limit per launch

void require_cpu(const at::Tensor& t, const char* what, const char* name) {
  if (t.defined() && !t.device().is_cpu()) {
    throw Error(fmt::format("{}: {} must be a CPU tensor", what, name));
  }
}

void require_invariant_cuda(const at::Tensor& t, const char* what, const char* name) {
  if (!can_run_invariant_cuda(t)) {
    throw Error(fmt::format(
        "{}: on CUDA {} must be bf16 or fp16 and the build must have verlpp's CUDA kernels", what,
        name));
  }
}

// Row blocks of exactly kInvariantGemmRows rows through cuBLAS (the last one padded with zeros).
at::Tensor chunked_gemm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                        at::ScalarType out_dtype) {
  const int64_t M = x.size(0), K = x.size(1), N = weight.size(0);
  const at::Tensor xc = x.contiguous(), wt = weight.t();
  at::Tensor out = at::empty({M, N}, x.options().dtype(out_dtype));
  for (int64_t a = 0; a < M; a += kInvariantGemmRows) {
    const int64_t n = std::min(kInvariantGemmRows, M - a);
    at::Tensor rows = xc.narrow(0, a, n);
    if (n < kInvariantGemmRows) {
      rows = at::cat({rows, at::zeros({kInvariantGemmRows - n, K}, xc.options())});
    }
    at::Tensor y = out_dtype == at::kFloat ? compat::mm_fp32(rows, wt) : at::mm(rows, wt);
    if (bias.defined()) y = y + bias.to(y.scalar_type());
    out.narrow(0, a, n).copy_(y.narrow(0, 0, n));
  }
  return out;
}

// One query per kernel "sequence": query i reads rows [start_i, start_i + count_i) of k and v.
// start, count: validated int64 on the host.
at::Tensor cuda_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& start, const at::Tensor& count, double scale) {
  const char* what = "batch-invariant attention";
  require_invariant_cuda(q, what, "q");
  if (!can_decode_attention(q, k)) {
    throw Error(fmt::format("{}: the decode kernel does not take q [{}, {}, {}] with {} kv heads",
                            what, q.size(0), q.size(1), q.size(2), k.size(1)));
  }
  const int64_t max_count = count.numel() ? count.max().item<int64_t>() : 1;
  const at::Tensor starts = start.to(q.device(), at::kInt), counts = count.to(q.device(), at::kInt);
  at::Tensor out = at::empty_like(q);
  for (int64_t a = 0; a < q.size(0); a += kMaxKernelQueries) {
    const int64_t n = std::min(kMaxKernelQueries, q.size(0) - a);
    out.narrow(0, a, n).copy_(decode_attention(q.narrow(0, a, n), k, v, starts.narrow(0, a, n),
                                               counts.narrow(0, a, n), max_count, scale,
                                               kInvariantKeysPerSplit));
  }
  return out;
}

at::ScalarType compute_type(const at::Tensor& t) {
  return t.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
}

// The sum of term(i) over i < n in the fixed order of the header: eight partial sums (term i goes
// to partial i % 8, in order of i), combined in a fixed tree.
template <typename T, typename Term>
T fixed_order_sum(int64_t n, Term term) {
  T p[kPartials] = {};
  int64_t i = 0;
  for (; i + kPartials <= n; i += kPartials) {
    for (int64_t j = 0; j < kPartials; ++j) p[j] += term(i + j);
  }
  for (int64_t j = 0; i + j < n; ++j) p[j] += term(i + j);
  return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
}

template <typename T>
T fixed_order_dot(const T* a, const T* b, int64_t n) {
  return fixed_order_sum<T>(n, [&](int64_t i) { return a[i] * b[i]; });
}

template <typename T>
void linear_rows(const T* x, const T* w, const T* bias, T* out, int64_t M, int64_t N, int64_t K) {
  at::parallel_for(0, M * N, 64, [&](int64_t begin, int64_t end) {
    for (int64_t e = begin; e < end; ++e) {
      const int64_t m = e / N, n = e % N;
      T y = fixed_order_dot(x + m * K, w + n * K, K);
      if (bias != nullptr) y += bias[n];
      out[e] = y;
    }
  });
}

struct AttentionShape {
  int64_t queries, heads, kv_heads, dim, keys;
};

template <typename T>
void attention_rows(const T* q, const T* k, const T* v, const int64_t* start, const int64_t* count,
                    T scale, T* out, const AttentionShape& s) {
  const int64_t group = s.heads / s.kv_heads;
  at::parallel_for(0, s.queries * s.heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> scores, acc(static_cast<size_t>(s.dim));
    for (int64_t e = begin; e < end; ++e) {
      const int64_t i = e / s.heads, h = e % s.heads, kvh = h / group;
      const int64_t n = count[i];
      const T* qi = q + (i * s.heads + h) * s.dim;
      scores.resize(static_cast<size_t>(n));
      T top = -INFINITY;
      for (int64_t j = 0; j < n; ++j) {
        const T* kj = k + ((start[i] + j) * s.kv_heads + kvh) * s.dim;
        scores[j] = fixed_order_dot(qi, kj, s.dim) * scale;
        top = std::max(top, scores[j]);
      }
      std::fill(acc.begin(), acc.end(), T(0));
      T total = 0;
      for (int64_t j = 0; j < n; ++j) {
        const T p = std::exp(scores[j] - top);
        total += p;
        const T* vj = v + ((start[i] + j) * s.kv_heads + kvh) * s.dim;
        for (int64_t c = 0; c < s.dim; ++c) acc[c] += p * vj[c];
      }
      T* o = out + e * s.dim;
      for (int64_t c = 0; c < s.dim; ++c) o[c] = acc[c] / total;
    }
  });
}

template <typename T>
void normalize_rows(const T* x, T* out, int64_t rows, int64_t H, T eps) {
  at::parallel_for(0, rows, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * H;
      const T inv = T(1) / std::sqrt(fixed_order_dot(xr, xr, H) / static_cast<T>(H) + eps);
      for (int64_t c = 0; c < H; ++c) out[r * H + c] = xr[c] * inv;
    }
  });
}

template <typename T, typename F>
void elementwise(const T* x, T* out, int64_t n, F f) {
  at::parallel_for(0, n, 4096, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = f(x[i]);
  });
}

at::Tensor as_compute(const at::Tensor& t, at::ScalarType type) { return t.to(type).contiguous(); }

}  // namespace

bool can_run_invariant_cuda(const at::Tensor& x) {
#ifdef VERLPP_CUDA_KERNELS
  return x.is_cuda() && (x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kHalf);
#else
  (void)x;
  return false;
#endif
}

at::Tensor invariant_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                            at::ScalarType out_dtype) {
  const char* what = "batch-invariant linear";
  if (x.dim() != 2 || weight.dim() != 2 || x.size(1) != weight.size(1) ||
      (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0)))) {
    throw Error(fmt::format("{}: x [M, K], weight [N, K] and bias [N] expected", what));
  }
  if (x.is_cuda()) {
    require_invariant_cuda(x, what, "x");
    if (weight.scalar_type() != x.scalar_type() || weight.device() != x.device()) {
      throw Error(fmt::format("{}: weight must be x's dtype on x's device", what));
    }
    return chunked_gemm(x, weight, bias, out_dtype);
  }
  require_cpu(weight, what, "weight");
  require_cpu(bias, what, "bias");
  const at::ScalarType type = compute_type(x);
  const at::Tensor xc = as_compute(x, type), wc = as_compute(weight, type);
  const at::Tensor bc = bias.defined() ? as_compute(bias, type) : at::Tensor();
  const int64_t M = x.size(0), N = weight.size(0), K = x.size(1);
  at::Tensor out = at::empty({M, N}, xc.options());
  AT_DISPATCH_FLOATING_TYPES(type, "invariant_linear", [&] {
    linear_rows<scalar_t>(xc.data_ptr<scalar_t>(), wc.data_ptr<scalar_t>(),
                          bc.defined() ? bc.data_ptr<scalar_t>() : nullptr,
                          out.data_ptr<scalar_t>(), M, N, K);
  });
  return out.to(out_dtype);
}

at::Tensor invariant_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const at::Tensor& key_start, const at::Tensor& key_count,
                               double scale) {
  const char* what = "batch-invariant attention";
  for (const auto& [t, name] : {std::pair{&q, "q"}, {&k, "k"}, {&v, "v"}}) {
    if (t->device() != q.device()) {
      throw Error(fmt::format("{}: {} must be on q's device", what, name));
    }
    if (t->dim() != 3) {
      throw Error(fmt::format("{}: {} must be [rows, heads, head_dim]", what, name));
    }
  }
  const AttentionShape s{q.size(0), q.size(1), k.size(1), q.size(2), k.size(0)};
  if (k.sizes() != v.sizes() || k.size(2) != s.dim || s.kv_heads == 0 || s.heads % s.kv_heads) {
    throw Error(fmt::format("{}: k and v must be [keys, kv_heads, {}] with kv_heads dividing {}",
                            what, s.dim, s.heads));
  }
  const at::Tensor start = key_start.to(at::kCPU, at::kLong).contiguous();
  const at::Tensor count = key_count.to(at::kCPU, at::kLong).contiguous();
  if (start.numel() != s.queries || count.numel() != s.queries) {
    throw Error(fmt::format("{}: key_start and key_count must hold {} entries", what, s.queries));
  }
  for (int64_t i = 0; i < s.queries; ++i) {
    const int64_t a = start.data_ptr<int64_t>()[i], n = count.data_ptr<int64_t>()[i];
    if (a < 0 || n < 1 || a + n > s.keys) {
      throw Error(fmt::format("{}: query {} reads keys [{}, {}) outside [0, {}) or none", what, i,
                              a, a + n, s.keys));
    }
  }
  if (q.is_cuda()) return cuda_attention(q, k, v, start, count, scale);
  const at::ScalarType type = compute_type(q);
  const at::Tensor qc = as_compute(q, type), kc = as_compute(k, type), vc = as_compute(v, type);
  at::Tensor out = at::empty(q.sizes(), qc.options());
  AT_DISPATCH_FLOATING_TYPES(type, "invariant_attention", [&] {
    attention_rows<scalar_t>(qc.data_ptr<scalar_t>(), kc.data_ptr<scalar_t>(),
                             vc.data_ptr<scalar_t>(), start.data_ptr<int64_t>(),
                             count.data_ptr<int64_t>(), static_cast<scalar_t>(scale),
                             out.data_ptr<scalar_t>(), s);
  });
  return out.to(q.scalar_type());
}

at::Tensor invariant_decode_attention_paged(const at::Tensor& q, const at::Tensor& k_cache,
                                            const at::Tensor& v_cache, const at::Tensor& pages,
                                            const at::Tensor& page_offsets, int64_t page_size,
                                            const at::Tensor& lengths, int64_t max_length,
                                            double scale) {
  require_invariant_cuda(q, "batch-invariant decode attention", "q");
  return decode_attention_paged(q, k_cache, v_cache, pages, page_offsets, page_size, lengths,
                                max_length, scale, kInvariantKeysPerSplit);
}

at::Tensor invariant_rms_normalized(const at::Tensor& x, double eps) {
  require_cpu(x, "batch-invariant RMSNorm", "x");
  const at::ScalarType type = compute_type(x);
  const at::Tensor xc = as_compute(x, type);
  at::Tensor out = at::empty_like(xc);
  const int64_t H = x.size(-1);
  AT_DISPATCH_FLOATING_TYPES(type, "invariant_rms_normalized", [&] {
    normalize_rows<scalar_t>(xc.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(),
                             H == 0 ? 0 : xc.numel() / H, H, static_cast<scalar_t>(eps));
  });
  return out;
}

at::Tensor invariant_silu(const at::Tensor& x) {
  if (x.is_cuda()) return at::silu(x);
  const at::Tensor xc = as_compute(x, compute_type(x));
  at::Tensor out = at::empty_like(xc);
  AT_DISPATCH_FLOATING_TYPES(xc.scalar_type(), "invariant_silu", [&] {
    elementwise(xc.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), xc.numel(),
                [](scalar_t a) { return a / (scalar_t(1) + std::exp(-a)); });
  });
  return out.to(x.scalar_type());
}

std::pair<at::Tensor, at::Tensor> invariant_cos_sin(const at::Tensor& angles) {
  if (angles.is_cuda()) return {angles.cos(), angles.sin()};
  const at::Tensor a = angles.to(at::kFloat).contiguous();
  at::Tensor cos = at::empty_like(a), sin = at::empty_like(a);
  elementwise(a.data_ptr<float>(), cos.data_ptr<float>(), a.numel(),
              [](float t) { return std::cos(t); });
  elementwise(a.data_ptr<float>(), sin.data_ptr<float>(), a.numel(),
              [](float t) { return std::sin(t); });
  return {cos, sin};
}

at::Tensor invariant_token_logprobs(const at::Tensor& logits, const at::Tensor& targets,
                                    double temperature) {
  const char* what = "batch-invariant log-prob";
  if (logits.dim() != 2 || logits.scalar_type() != at::kFloat) {
    throw Error(fmt::format("{}: logits must be fp32 [N, V]", what));
  }
  if (logits.is_cuda()) {
    const at::Tensor z = logits.contiguous();
    if (!can_logits_logprob(z)) {
      throw Error(fmt::format("{}: this build has no CUDA log-prob kernel", what));
    }
    return logits_logprob(z, targets.to(z.device(), at::kLong).contiguous(), temperature, false)
        .logprob;
  }
  const at::Tensor z = (temperature == 1.0 ? logits : logits / temperature).contiguous();
  const at::Tensor t = targets.to(at::kCPU, at::kLong).contiguous();
  const int64_t N = z.size(0), V = z.size(1);
  if (t.numel() != N) throw Error(fmt::format("{}: targets must hold {} entries", what, N));
  at::Tensor out = at::empty({N}, z.options());
  const float* zp = z.data_ptr<float>();
  const int64_t* tp = t.data_ptr<int64_t>();
  float* op = out.data_ptr<float>();
  for (int64_t r = 0; r < N; ++r) {
    if (tp[r] < 0 || tp[r] >= V) {
      throw Error(fmt::format("{}: target {} of row {} outside [0, {})", what, tp[r], r, V));
    }
  }
  at::parallel_for(0, N, 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* row = zp + r * V;
      float top = -INFINITY;
      for (int64_t c = 0; c < V; ++c) top = std::max(top, row[c]);
      op[r] =
          row[tp[r]] - top -
          std::log(fixed_order_sum<float>(V, [&](int64_t c) { return std::exp(row[c] - top); }));
    }
  });
  return out;
}

}  // namespace verlpp::kernels
