// The chunked form of the gated delta rule (delta_rule.h) on inputs already gathered into chunks,
// with a backward written out by hand: one autograd node per layer whose backward recomputes the
// per-chunk terms and the scan over chunks from the saved inputs (no per-step autograd graph, no
// saved [chunks, H, dk, dv] states).
//
// Per chunk of C tokens (models.md §3.1; Yang et al., arXiv:2412.06464, §3): gamma = cumsum(g)
// (float64, rounded once), D_rs = e^{gamma_r - gamma_s} for s <= r (else 0),
// A = strictly-lower(diag(beta) K K^T ⊙ D), T = (I + A)^{-1}, U = T diag(beta) V,
// W = T diag(beta e^gamma) K; the scan over a sequence's chunks from its state h_0:
//   V'_j = U_j - W_j h_j,   h_{j+1} = e^{gamma_last} h_j + (K ⊙ e^{gamma_last - gamma})^T V'_j,
//   O_j = (Q ⊙ e^gamma) h_j + (Q K^T ⊙ D) V'_j.
// The backward runs the scan in reverse for dh (dh_j = e^{gamma_last} dh_{j+1} + (Q⊙e^gamma)^T dO_j
// - W_j^T dV'_j with dV'_j = (QK^T⊙D)^T dO_j + (K⊙e^{gamma_last-gamma}) dh_{j+1}) and takes every
// other gradient in batched products, using d(T) = -T dA T for the triangular inverse.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace verlpp::model {

struct DeltaRuleLayout;

// q, k [N, H, C, dk] fp32 (q l2-normalised and scaled by dk^-1/2, k l2-normalised), v [N, H, C,
// dv] fp32, g, beta [N, H, C] fp32, all in the layout's chunk order (pad rows: zeros, g = beta =
// 0); state [S, H, dk, dv] fp32, the sequences' initial states in layout.order. Returns
// {o [N, H, C, dv] fp32, final state [S, H, dk, dv] fp32 in layout.order}. Differentiable in q, k,
// v, g and beta through o; neither state carries a gradient.
std::vector<at::Tensor> chunked_delta_rule(const at::Tensor& q, const at::Tensor& k,
                                           const at::Tensor& v, const at::Tensor& g,
                                           const at::Tensor& beta, const at::Tensor& state,
                                           const DeltaRuleLayout& layout);

}  // namespace verlpp::model
