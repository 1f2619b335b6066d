#include "verlpp/model/layers/moe.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/kernels/moe_combine.h"
#include "verlpp/kernels/moe_group.h"
#include "verlpp/kernels/moe_route.h"
#include "verlpp/kernels/silu_mul.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/layers/linear.h"
#include "verlpp/model/layers/mlp.h"
#include "verlpp/model/weight_table.h"

namespace verlpp::model {

void declare_moe(WeightTable& table, const std::string& prefix, int64_t layer, MoeWeights& w,
                 const ModelConfig& c) {
  const int64_t E = c.moe.num_experts;
  const int64_t I = c.moe.moe_intermediate_size;
  const int64_t h = c.hidden_size;
  table.add({prefix + "gate.weight",
             {E, h},
             WeightInit::normal,
             layer,
             0,
             "num_experts, hidden_size",
             {},
             &w.router});
  table.add({prefix + "experts.gate_up_proj",
             {E, 2 * I, h},
             WeightInit::normal,
             layer,
             0,
             "num_experts, 2 * moe_intermediate_size, hidden_size",
             PerExpertLayout{prefix + "experts.", {"gate_proj", "up_proj"}},
             &w.gate_up_proj});
  table.add({prefix + "experts.down_proj",
             {E, h, I},
             WeightInit::normal,
             layer,
             0,
             "num_experts, hidden_size, moe_intermediate_size",
             PerExpertLayout{prefix + "experts.", {"down_proj"}},
             &w.down_proj});
}

namespace {

struct Routing {
  at::Tensor logits;   // [T, E] model dtype
  at::Tensor weights;  // [T, k] model dtype
  at::Tensor experts;  // [T, k] int64
};

// Whether this call may run verlpp's forward-only MoE kernels: no autograd, and not in
// batch-invariant mode (whose ATen path sums slot by slot in its own order).
bool inference_kernels() { return !at::GradMode::is_enabled() && !batch_invariant(); }

// t [T, k, ...] summed over its k slots: [T, ...]. In batch-invariant mode slot by slot in order
// (a reduction kernel's order may change with the number of tokens).
at::Tensor slot_sum(const at::Tensor& t) {
  if (!batch_invariant()) return t.sum(1);
  at::Tensor sum = t.select(1, 0);
  for (int64_t s = 1; s < t.size(1); ++s) sum = sum + t.select(1, s);
  return sum;
}

Routing route(const MoeWeights& w, const MoeConfig& c, const at::Tensor& x) {
  Routing r;
  r.logits = model::linear(x, w.router);
  if (inference_kernels() && kernels::can_moe_route(r.logits, c.num_experts_per_tok)) {
    kernels::MoeRoute kr = kernels::moe_route(r.logits, c.num_experts_per_tok, c.norm_topk_prob);
    r.weights = kr.weights;
    r.experts = kr.experts;
    return r;
  }
  const at::Tensor probs = at::softmax(r.logits, -1, at::kFloat);
  auto [top, experts] = at::topk(probs, c.num_experts_per_tok, -1);
  if (c.norm_topk_prob) top = top / slot_sum(top).unsqueeze(1);
  r.weights = top.to(x.scalar_type());
  r.experts = experts;
  return r;
}

// The (token, slot) pairs of experts [T, k], flattened as token * k + slot, grouped by expert
// (stable: token order within an expert; the grouping is unique, so the kernel and ATen's sort
// give the same tensors).
kernels::ExpertGroups group_by_expert(const at::Tensor& experts, int64_t num_experts) {
  if (kernels::can_moe_group(experts, num_experts)) return kernels::moe_group(experts, num_experts);
  const at::Tensor flat = experts.reshape({-1});
  const at::Tensor order = std::get<1>(at::sort(flat, c10::optional<bool>(true), /*dim=*/0));
  const at::Tensor counts =
      at::zeros({num_experts}, flat.options()).scatter_add_(0, flat, at::ones_like(flat));
  return {counts.cumsum(0).to(at::kInt),
          at::empty_like(order).scatter_(0, order, at::arange(order.numel(), order.options())),
          order.div(experts.size(1), "floor")};
}

// silu(gate) * up of a [rows, 2I] gate_up product.
at::Tensor swiglu_of(const at::Tensor& gate_up) {
  const int64_t I = gate_up.size(-1) / 2;
  const at::Tensor gate = gate_up.narrow(-1, 0, I);
  const at::Tensor up = gate_up.narrow(-1, I, I);
  if (!at::GradMode::is_enabled() && kernels::can_silu_mul(gate, up)) {
    return kernels::silu_mul(gate, up);
  }
  return model::silu(gate) * up;
}

// Expert outputs of the rows of `sorted_x`, which are grouped by expert (offsets [E]: each
// group's end row).
at::Tensor grouped_experts(const MoeWeights& w, const at::Tensor& sorted_x,
                           const at::Tensor& offsets) {
  const at::Tensor act =
      swiglu_of(compat::grouped_mm(sorted_x, w.gate_up_proj.transpose(1, 2), offsets));
  return compat::grouped_mm(act, w.down_proj.transpose(1, 2), offsets);
}

at::Tensor looped_experts(const MoeWeights& w, const at::Tensor& sorted_x,
                          const at::Tensor& offsets) {
  const at::Tensor host = offsets.to(at::kCPU).contiguous();
  const int32_t* end = host.data_ptr<int32_t>();
  std::vector<at::Tensor> outs;
  for (int64_t e = 0, start = 0; e < host.size(0); start = end[e], ++e) {
    if (end[e] == start) continue;
    const at::Tensor rows = sorted_x.narrow(0, start, end[e] - start);
    const at::Tensor act = swiglu_of(model::linear(rows, w.gate_up_proj[e]));
    outs.push_back(model::linear(act, w.down_proj[e]));
  }
  return at::cat(outs, 0);
}

// sum_s weights[:, s] * slots[:, s] per token: in batch-invariant mode the products in fp32, then
// slot_sum (a batched GEMM's order may change with the token count); otherwise one batched GEMM
// ([1, k] x [k, hidden] per token), which accumulates in fp32 and rounds once.
at::Tensor weighted_slots(const at::Tensor& weights, const at::Tensor& slots) {
  if (!batch_invariant()) return at::bmm(weights.unsqueeze(1), slots).squeeze(1);
  return slot_sum(weights.to(at::kFloat).unsqueeze(-1) * slots.to(at::kFloat))
      .to(slots.scalar_type());
}

// The block's output from the grouped expert outputs y: each token's k rows (row_of_pair) weighted
// and summed.
at::Tensor combine(const at::Tensor& weights, const at::Tensor& y, const at::Tensor& row_of_pair) {
  if (inference_kernels() && kernels::can_moe_combine(y, weights, row_of_pair)) {
    return kernels::moe_combine(y, weights, row_of_pair);
  }
  const at::Tensor slots =
      y.index_select(0, row_of_pair).view({weights.size(0), weights.size(1), y.size(1)});
  return weighted_slots(weights, slots);
}

}  // namespace

MoeOutput sparse_moe(const MoeWeights& w, const MoeConfig& c, const at::Tensor& x) {
  const Routing r = route(w, c, x);
  const kernels::ExpertGroups groups = group_by_expert(r.experts, c.num_experts);
  const at::Tensor sorted_x = x.index_select(0, groups.source_token);
  const at::Tensor y = !batch_invariant() && compat::can_grouped_mm(x)
                           ? grouped_experts(w, sorted_x, groups.offsets)
                           : looped_experts(w, sorted_x, groups.offsets);
  return {combine(r.weights, y, groups.row_of_pair), r.logits};
}

bool sparse_moe_capturable() { return compat::has_grouped_mm() && !batch_invariant(); }

at::Tensor load_balancing_loss(const std::vector<at::Tensor>& router_logits, int64_t num_experts,
                               int64_t top_k) {
  if (router_logits.empty()) throw Error("load_balancing_loss: no router logits");
  const at::Tensor logits = at::cat(router_logits, 0);
  const at::Tensor probs = at::softmax(logits, -1);
  const at::Tensor chosen = std::get<1>(at::topk(probs, top_k, -1)).reshape({-1});
  const double rows = static_cast<double>(logits.size(0));
  const at::Tensor counts =
      at::zeros({num_experts}, logits.options().dtype(at::kFloat))
          .scatter_add_(0, chosen, at::ones(chosen.sizes(), logits.options().dtype(at::kFloat)));
  const at::Tensor mean_prob = probs.mean(0).to(at::kFloat);
  return static_cast<double>(num_experts) * ((counts / rows) * mean_prob).sum();
}

}  // namespace verlpp::model

namespace verlpp::model {

void declare_shared_expert(WeightTable& table, const std::string& prefix, int64_t layer,
                           SharedExpertWeights& w, const ModelConfig& c) {
  declare_mlp(table, prefix + "shared_expert.", layer, w.mlp, c.hidden_size,
              c.moe.shared_expert_intermediate_size, false);
  table.add({prefix + "shared_expert_gate.weight",
             {1, c.hidden_size},
             WeightInit::normal,
             layer,
             0,
             "1, hidden_size",
             {},
             &w.gate});
}

at::Tensor shared_expert(const SharedExpertWeights& w, const at::Tensor& x) {
  return at::sigmoid(at::linear(x, w.gate)) * swiglu(w.mlp, x);
}

}  // namespace verlpp::model
