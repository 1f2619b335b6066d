#include "verlpp/model/layers/delta_rule_chunked.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>

#include <cmath>

#include "verlpp/kernels/delta_rule_chunk_terms.h"
#include "verlpp/kernels/delta_rule_scan.h"
#include "verlpp/model/layers/delta_rule.h"

namespace verlpp::model {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The per-chunk terms, batched over every chunk ([N, H, C, ...]).
struct ChunkTerms {
  at::Tensor egamma;      // e^gamma [N, H, C]
  at::Tensor tail;        // e^{gamma_last - gamma} [N, H, C]
  at::Tensor last_decay;  // e^{gamma_last} [N, H, 1, 1]
  at::Tensor decay;       // D [N, H, C, C], zero above the diagonal
  at::Tensor kk, qk;      // K K^T, Q K^T [N, H, C, C]
  at::Tensor inverse;     // T = (I + A)^{-1} [N, H, C, C], unit lower triangular
  at::Tensor u, w;        // T diag(beta) V [N, H, C, dv], T diag(beta e^gamma) K [N, H, C, dk]
  at::Tensor qd, kd;      // Q ⊙ e^gamma, K ⊙ e^{gamma_last - gamma} (rows) [N, H, C, dk]
  at::Tensor p;           // QK^T ⊙ D [N, H, C, C]
};

// The terms through verlpp's kernel (kernels/delta_rule_chunk_terms.h); decay, kk, qk and the
// inverse only with `backward`.
ChunkTerms kernel_chunk_terms(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                              const at::Tensor& g, const at::Tensor& beta, bool backward) {
  kernels::DeltaRuleChunkTerms r = kernels::delta_rule_chunk_terms(
      q.contiguous(), k.contiguous(), v.contiguous(), g.contiguous(), beta.contiguous(), backward);
  ChunkTerms t;
  t.egamma = r.egamma;
  t.tail = r.tail;
  t.last_decay = r.last_decay.view({q.size(0), q.size(1), 1, 1});
  t.decay = r.decay;
  t.kk = r.kk;
  t.qk = r.qk;
  t.inverse = r.inverse;
  t.u = r.u;
  t.w = r.w;
  t.qd = r.qd;
  t.kd = r.kd;
  t.p = r.p;
  return t;
}

ChunkTerms chunk_terms(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                       const at::Tensor& g, const at::Tensor& beta, bool backward) {
  if (kernels::can_delta_rule_chunk_terms(q, v)) {
    return kernel_chunk_terms(q, k, v, g, beta, backward);
  }
  const int64_t C = q.size(2);
  // gamma in float64: in fp32 the cumulative sum of a chunk's log decays (down to -1000 for fast
  // decays) loses about |gamma| * 6e-8 of every gamma_r - gamma_s, a relative error of the decays
  // that shows in the logits; the exponentials are taken in float64 and rounded to fp32 once.
  const at::Tensor gamma = g.to(at::kDouble).cumsum(-1);
  const at::Tensor above = at::ones({C, C}, q.options().dtype(at::kBool)).triu(1);
  const at::Tensor last = gamma.narrow(-1, C - 1, 1);
  ChunkTerms t;
  t.decay = (gamma.unsqueeze(-1) - gamma.unsqueeze(-2))
                .masked_fill(above, -INFINITY)
                .exp()
                .to(at::kFloat);
  t.egamma = gamma.exp().to(at::kFloat);
  t.tail = (last - gamma).exp().to(at::kFloat);
  t.last_decay = last.exp().to(at::kFloat).unsqueeze(-1);
  t.kk = at::matmul(k, k.transpose(-1, -2));
  t.qk = at::matmul(q, k.transpose(-1, -2));
  const at::Tensor a = (beta.unsqueeze(-1) * t.kk * t.decay).tril(-1);
  // unitriangular: the solve reads only the strictly lower part of `a` and takes a unit diagonal.
  t.inverse = at::linalg_solve_triangular(a, at::eye(C, q.options()), /*upper=*/false,
                                          /*left=*/true, /*unitriangular=*/true);
  // diag(beta) and diag(beta e^gamma) scale the columns of T [C, C] rather than the rows of V and
  // K [C, d] (d = 128 in Qwen3.5: half the elementwise traffic).
  t.u = at::matmul(t.inverse * beta.unsqueeze(-2), v);
  t.w = at::matmul(t.inverse * (beta * t.egamma).unsqueeze(-2), k);
  t.qd = q * t.egamma.unsqueeze(-1);
  t.kd = k * t.tail.unsqueeze(-1);
  t.p = t.qk * t.decay;
  return t;
}

// The layout's chunk steps: on the host for the ATen scan, on the device for the kernel.
struct Steps {
  std::vector<int64_t> offsets, sizes;
  at::Tensor device_offsets, device_counts;
};

struct Scan {
  at::Tensor h;      // the state before each chunk [N, H, dk, dv]
  at::Tensor v_new;  // V' [N, H, C, dv]
  at::Tensor final_state;
};

// [N, H, 1, 1] -> [N, H], contiguous (the kernel's decay).
at::Tensor per_chunk(const at::Tensor& last_decay) {
  return last_decay.reshape({last_decay.size(0), last_decay.size(1)}).contiguous();
}

// The scan over chunk steps (steps j: chunks [offsets[j], offsets[j] + sizes[j]) of the first
// sizes[j] sequences). On CUDA verlpp's scan kernel.
Scan scan_forward(const ChunkTerms& t, const at::Tensor& state, const Steps& steps) {
  const at::Tensor& kd = t.kd;
  Scan s;
  s.final_state = state.clone();
  if (kernels::can_delta_rule_scan(state, t.u.size(2))) {
    kernels::DeltaRuleScanResult r = kernels::delta_rule_scan(
        t.u.contiguous(), t.w.contiguous(), kd.contiguous(), at::Tensor(), per_chunk(t.last_decay),
        s.final_state, steps.device_offsets, steps.device_counts,
        /*sign1=*/-1.0, /*sign2=*/1.0, /*reverse=*/false);
    s.h = r.before;
    s.v_new = r.x;
    return s;
  }
  const int64_t N = t.u.size(0);
  s.h = at::empty({N, state.size(1), state.size(2), state.size(3)}, state.options());
  s.v_new = at::empty_like(t.u);
  for (size_t j = 0; j < steps.sizes.size(); ++j) {
    const int64_t off = steps.offsets[j], m = steps.sizes[j];
    at::Tensor h = s.final_state.narrow(0, 0, m);
    s.h.narrow(0, off, m).copy_(h);
    at::Tensor v_new = s.v_new.narrow(0, off, m);
    at::sub_out(v_new, t.u.narrow(0, off, m), at::matmul(t.w.narrow(0, off, m), h));
    h.mul_(t.last_decay.narrow(0, off, m))
        .add_(at::matmul(kd.narrow(0, off, m).transpose(-1, -2), v_new));
  }
  return s;
}

struct ScanGrad {
  at::Tensor next;   // d loss / d h_{j+1}, the state after each chunk [N, H, dk, dv]
  at::Tensor v_new;  // d loss / d V' [N, H, C, dv], through the outputs and the later states
};

// The scan in reverse: dv_out = (QK^T ⊙ D)^T dO and dh_out = (Q ⊙ e^gamma)^T dO, the gradients
// reaching V' and h_j through each chunk's own output.
ScanGrad scan_backward(const ChunkTerms& t, const at::Tensor& dv_out, const at::Tensor& dh_out,
                       int64_t S, const Steps& steps) {
  const at::Tensor& kd = t.kd;
  at::Tensor dstate =
      at::zeros({S, dh_out.size(1), dh_out.size(2), dh_out.size(3)}, dh_out.options());
  ScanGrad d;
  if (kernels::can_delta_rule_scan(dstate, t.u.size(2))) {
    kernels::DeltaRuleScanResult r = kernels::delta_rule_scan(
        dv_out.contiguous(), kd.contiguous(), t.w.contiguous(), dh_out.contiguous(),
        per_chunk(t.last_decay), dstate, steps.device_offsets, steps.device_counts,
        /*sign1=*/1.0, /*sign2=*/-1.0, /*reverse=*/true);
    d.next = r.before;
    d.v_new = r.x;
    return d;
  }
  d.next = at::empty_like(dh_out);
  d.v_new = dv_out.clone();
  for (size_t j = steps.sizes.size(); j-- > 0;) {
    const int64_t off = steps.offsets[j], m = steps.sizes[j];
    at::Tensor dh = dstate.narrow(0, 0, m);
    d.next.narrow(0, off, m).copy_(dh);
    at::Tensor dv = d.v_new.narrow(0, off, m);
    dv.add_(at::matmul(kd.narrow(0, off, m), dh));
    dh.mul_(t.last_decay.narrow(0, off, m))
        .add_(dh_out.narrow(0, off, m))
        .sub_(at::matmul(t.w.narrow(0, off, m).transpose(-1, -2), dv));
  }
  return d;
}

at::Tensor row_dot(const at::Tensor& a, const at::Tensor& b) { return (a * b).sum(-1); }

struct ChunkedDeltaRule : torch::autograd::Function<ChunkedDeltaRule> {
  static variable_list forward(AutogradContext* ctx, const at::Tensor& q, const at::Tensor& k,
                               const at::Tensor& v, const at::Tensor& g, const at::Tensor& beta,
                               const at::Tensor& state, const at::Tensor& scan_offsets,
                               const at::Tensor& scan_counts, std::vector<int64_t> offsets,
                               std::vector<int64_t> sizes) {
    const Steps steps{offsets, sizes, scan_offsets, scan_counts};
    const ChunkTerms t = chunk_terms(q, k, v, g, beta, /*backward=*/false);
    const Scan s = scan_forward(t, state, steps);
    at::Tensor o = at::matmul(t.qd, s.h);
    o.add_(at::matmul(t.p, s.v_new));
    std::vector<at::Tensor> saved = {q, k, v, g, beta, state, scan_offsets, scan_counts};
    // The backward needs the scan's states and V': kept when a gradient will be taken (fp32,
    // 4 (dk + C) dv bytes per head and chunk, 200 MB a layer at 8,192 tokens of Qwen3.5-2B) rather
    // than scanned a second time.
    if (q.requires_grad() || k.requires_grad() || v.requires_grad() || g.requires_grad() ||
        beta.requires_grad() || state.requires_grad()) {
      saved.push_back(s.h);
      saved.push_back(s.v_new);
    }
    ctx->save_for_backward(saved);
    ctx->saved_data["offsets"] = offsets;
    ctx->saved_data["sizes"] = sizes;
    ctx->mark_non_differentiable({s.final_state});
    return {o, s.final_state};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &g = saved[3], &beta = saved[4];
    const at::Tensor& state = saved[5];
    const Steps steps{ctx->saved_data["offsets"].toIntVector(),
                      ctx->saved_data["sizes"].toIntVector(), saved[6], saved[7]};
    const at::Tensor d_o =
        grad_out[0].defined() ? grad_out[0].contiguous() : at::zeros(v.sizes(), v.options());
    const ChunkTerms t = chunk_terms(q, k, v, g, beta, /*backward=*/true);
    const Scan s{saved[8], saved[9], at::Tensor()};
    const at::Tensor d_qd = at::matmul(d_o, s.h.transpose(-1, -2));
    const at::Tensor d_p = at::matmul(d_o, s.v_new.transpose(-1, -2));
    const ScanGrad d = scan_backward(t, at::matmul(t.p.transpose(-1, -2), d_o),
                                     at::matmul(t.qd.transpose(-1, -2), d_o), state.size(0), steps);
    // V' = U - W h_j and h_{j+1} = e^{gamma_last} h_j + Kd^T V'.
    const at::Tensor d_w = -at::matmul(d.v_new, s.h.transpose(-1, -2));
    const at::Tensor d_kd = at::matmul(s.v_new, d.next.transpose(-1, -2));
    const at::Tensor d_last = (s.h * d.next).sum({-2, -1}) * t.last_decay.squeeze(-1).squeeze(-1);
    // U = T Bv, W = T Bk with T = (I + A)^{-1}: dB = T^T dU, dA = -T^T dT T^T = -(dBv U^T + dBk
    // W^T).
    const at::Tensor inverse_t = t.inverse.transpose(-1, -2);
    const at::Tensor d_bv = at::matmul(inverse_t, d.v_new);
    const at::Tensor d_bk = at::matmul(inverse_t, d_w);
    const at::Tensor d_a =
        -(at::matmul(d_bv, t.u.transpose(-1, -2)) + at::matmul(d_bk, t.w.transpose(-1, -2)))
             .tril(-1);
    const at::Tensor m = d_a * t.decay;            // dA ⊙ D
    const at::Tensor mb = beta.unsqueeze(-1) * m;  // d(K K^T) through A
    const at::Tensor d_qk = d_p * t.decay;         // d(Q K^T) through P
    const at::Tensor bk = beta * t.egamma;
    at::Tensor dq = d_qd * t.egamma.unsqueeze(-1) + at::matmul(d_qk, k);
    at::Tensor dk = at::matmul(d_qk.transpose(-1, -2), q) + d_kd * t.tail.unsqueeze(-1) +
                    bk.unsqueeze(-1) * d_bk + at::matmul(mb + mb.transpose(-1, -2), k);
    at::Tensor dv = beta.unsqueeze(-1) * d_bv;
    const at::Tensor r_bk = row_dot(d_bk, k);
    const at::Tensor r_kd = row_dot(d_kd, k) * t.tail;
    at::Tensor dbeta = row_dot(d_bv, v) + r_bk * t.egamma + row_dot(m, t.kk);
    // d gamma, then g = the reverse cumulative sum: gamma_r - gamma_s in D (through P and A),
    // e^gamma in Q ⊙ e^gamma and Bk, e^{gamma_last - gamma} in Kd, e^{gamma_last} in the scan.
    const at::Tensor e = d_qk * t.qk + mb * t.kk;
    at::Tensor dgamma = row_dot(d_qd, q) * t.egamma + r_bk * bk - r_kd + e.sum(-1) - e.sum(-2);
    dgamma.select(-1, dgamma.size(-1) - 1).add_(r_kd.sum(-1) + d_last);
    const at::Tensor dg = dgamma.flip(-1).cumsum(-1).flip(-1);
    return {dq,           dk,           dv,           dg,           dbeta,
            at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

std::vector<at::Tensor> chunked_delta_rule(const at::Tensor& q, const at::Tensor& k,
                                           const at::Tensor& v, const at::Tensor& g,
                                           const at::Tensor& beta, const at::Tensor& state,
                                           const DeltaRuleLayout& layout) {
  return ChunkedDeltaRule::apply(q, k, v, g, beta, state, layout.scan_offsets, layout.scan_counts,
                                 layout.step_offsets, layout.step_sizes);
}

}  // namespace verlpp::model
