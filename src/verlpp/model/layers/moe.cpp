#include "verlpp/model/layers/moe.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/core/error.h"
#include "verlpp/core/torch_compat.h"
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
  const at::Tensor probs = at::softmax(r.logits, -1, at::kFloat);
  auto [top, experts] = at::topk(probs, c.num_experts_per_tok, -1);
  if (c.norm_topk_prob) top = top / slot_sum(top).unsqueeze(1);
  r.weights = top.to(x.scalar_type());
  r.experts = experts;
  return r;
}

// silu(gate) * up of a [rows, 2I] gate_up product.
at::Tensor swiglu_of(const at::Tensor& gate_up) {
  const int64_t I = gate_up.size(-1) / 2;
  return model::silu(gate_up.narrow(-1, 0, I)) * gate_up.narrow(-1, I, I);
}

// Expert outputs of the rows of `sorted_x`, which are grouped by expert (counts [E] rows each).
at::Tensor grouped_experts(const MoeWeights& w, const at::Tensor& sorted_x,
                           const at::Tensor& counts) {
  const at::Tensor offs = counts.cumsum(0).to(at::kInt);
  const at::Tensor act =
      swiglu_of(compat::grouped_mm(sorted_x, w.gate_up_proj.transpose(1, 2), offs));
  return compat::grouped_mm(act, w.down_proj.transpose(1, 2), offs);
}

at::Tensor looped_experts(const MoeWeights& w, const at::Tensor& sorted_x,
                          const at::Tensor& counts) {
  const at::Tensor host = counts.to(at::kCPU).contiguous();
  const int64_t* n = host.data_ptr<int64_t>();
  std::vector<at::Tensor> outs;
  int64_t start = 0;
  for (int64_t e = 0; e < host.size(0); ++e) {
    if (n[e] == 0) continue;
    const at::Tensor rows = sorted_x.narrow(0, start, n[e]);
    const at::Tensor act = swiglu_of(model::linear(rows, w.gate_up_proj[e]));
    outs.push_back(model::linear(act, w.down_proj[e]));
    start += n[e];
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

}  // namespace

MoeOutput sparse_moe(const MoeWeights& w, const MoeConfig& c, const at::Tensor& x) {
  const int64_t T = x.size(0);
  const int64_t k = c.num_experts_per_tok;
  const Routing r = route(w, c, x);
  // (token, slot) pairs flattened as token * k + slot, grouped by expert (stable: token order
  // within an expert).
  const at::Tensor flat = r.experts.reshape({-1});
  const at::Tensor order = std::get<1>(at::sort(flat, c10::optional<bool>(true), /*dim=*/0));
  const at::Tensor counts =
      at::zeros({c.num_experts}, flat.options()).scatter_add_(0, flat, at::ones_like(flat));
  const at::Tensor sorted_x = x.index_select(0, order.div(k, "floor"));
  const at::Tensor y = !batch_invariant() && compat::can_grouped_mm(x)
                           ? grouped_experts(w, sorted_x, counts)
                           : looped_experts(w, sorted_x, counts);
  // Back to (token, slot) order through the inverse permutation; then each token's k outputs
  // weighted and summed.
  const at::Tensor inverse =
      at::empty_like(order).scatter_(0, order, at::arange(order.numel(), order.options()));
  const at::Tensor slots = y.index_select(0, inverse).view({T, k, x.size(1)});
  const at::Tensor out = weighted_slots(r.weights, slots);
  return {out, r.logits};
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
