// The sparse mixture-of-experts block of Qwen3-MoE and Qwen3.5-MoE (transformers'
// Qwen3MoeSparseMoeBlock, Qwen3MoeTopKRouter and Qwen3MoeExperts; models.md §1, §4; Qwen3.5-MoE
// always renormalises, norm_topk_prob, and adds a shared expert) and its load-balancing loss.
//
//   router:  l = x W_g^T (model dtype); p = softmax(l) in fp32; (w, e) = topk(p, k);
//            w /= sum(w) when norm_topk_prob (fp32); w cast to the model dtype
//   experts: y_e(x) = down_e(silu(g) * u), [g; u] = gate_up_e x
//   output:  sum_j w_j y_{e_j}(x), products and sum in fp32, rounded once (transformers' default
//            grouped_mm implementation rounds each w_j y_{e_j} to the model dtype before its fp32
//            sum: in bf16 verlpp's output is a rounding closer to the fp32 one)
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/model/layers/mlp.h"
#include "verlpp/model/model_config.h"

namespace verlpp::model {

class WeightTable;

struct MoeWeights {
  at::Tensor router;        // mlp.gate.weight [E, hidden]
  at::Tensor gate_up_proj;  // mlp.experts.gate_up_proj [E, 2 * I, hidden]: rows [0, I) gate
  at::Tensor down_proj;     // mlp.experts.down_proj [E, hidden, I]
};

// Declares PREFIX + gate.weight, experts.gate_up_proj and experts.down_proj (the experts stored
// per expert in hub checkpoints: experts.{e}.{gate_proj,up_proj,down_proj}.weight).
void declare_moe(WeightTable& table, const std::string& prefix, int64_t layer, MoeWeights& w,
                 const ModelConfig& config);

struct MoeOutput {
  at::Tensor hidden;         // [T, hidden] in the model dtype
  at::Tensor router_logits;  // [T, E] in the model dtype (differentiable)
};

// x [T, hidden] -> the block's output. The experts run as two grouped GEMMs over the (token,
// slot) pairs sorted by expert where LibTorch has them for x's device (CUDA, compat::grouped_mm),
// else one GEMM pair per expert that received tokens (CPU, and batch-invariant mode, where the
// routing weights' sum and the weighted sum of a token's expert outputs also run slot by slot in
// order: model/batch_invariant.h). Differentiable. Without autograd, outside batch-invariant mode
// and on CUDA, verlpp's forward-only kernels route (kernels/moe_route.h: the same experts; the
// renormalising sum in slot order) and combine (kernels/moe_combine.h: fp32 fused multiply-adds in
// slot order) where ATen sums in its own order, so the output may differ from the autograd path's
// in the last bit; the grouping by expert (kernels/moe_group.h, any mode: the same tensors as
// ATen's stable sort) and silu·mul (bit-identical) change nothing.
MoeOutput sparse_moe(const MoeWeights& w, const MoeConfig& config, const at::Tensor& x);

// Whether sparse_moe on a CUDA tensor runs without waiting for the device (no copy of the expert
// counts to the host), so that a CUDA graph can capture it: the grouped-GEMM path, outside
// batch-invariant mode.
bool sparse_moe_capturable();

// Qwen3.5-MoE's shared expert (Qwen3_5MoeSparseMoeBlock, models.md §4), added to the routed
// output on every token: sigmoid(x W_sg^T) * SwiGLU_shared(x), the sigmoid and product in the
// model dtype.
struct SharedExpertWeights {
  MlpWeights mlp;   // shared_expert.{gate,up,down}_proj: [Is, hidden], [Is, hidden], [hidden, Is]
  at::Tensor gate;  // shared_expert_gate.weight [1, hidden]
};

// Declares PREFIX shared_expert.{gate,up,down}_proj.weight and PREFIX shared_expert_gate.weight.
void declare_shared_expert(WeightTable& table, const std::string& prefix, int64_t layer,
                           SharedExpertWeights& w, const ModelConfig& config);

// x [T, hidden] -> [T, hidden].
at::Tensor shared_expert(const SharedExpertWeights& w, const at::Tensor& x);

// transformers' load_balancing_loss_func over the router logits of every sparse layer (each
// [rows, E], rows that are real tokens only), concatenated: p = softmax(l) in l's dtype, c_e = the
// top-k slots that chose expert e, R = all rows of all layers:
//   aux = E * sum_e (c_e / R) * (sum_rows p_e / R)
// A perfectly balanced router gives k. Returns an fp32 scalar, differentiable through p; throws
// verlpp::Error for an empty list.
at::Tensor load_balancing_loss(const std::vector<at::Tensor>& router_logits, int64_t num_experts,
                               int64_t top_k);

}  // namespace verlpp::model
