#include "verlpp/algo/optimal_token_baseline.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "verlpp/algo/checks.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

struct Prepared {
  at::Tensor mask;     // rewards' dtype
  at::Tensor returns;  // G
  at::Tensor path;     // W
};

Prepared prepare(const OptimalTokenBaselineInputs& in, const std::string& fn) {
  const at::Tensor& r = in.token_level_rewards;
  require_dim(r, 2, fn, "token_level_rewards");
  if (!at::isFloatingType(r.scalar_type())) {
    throw Error(fn + ": token_level_rewards must be floating point");
  }
  require_same_shape(r, "token_level_rewards", in.response_mask, "response_mask", fn);
  require_same_shape(r, "token_level_rewards", in.old_log_probs, "old_log_probs", fn);
  if (!in.sum_pi_squared.defined()) {
    throw Error(fn +
                ": sum_pi_squared is missing (set "
                "actor_rollout_ref.actor.calculate_sum_pi_squared=true)");
  }
  require_same_shape(r, "token_level_rewards", in.sum_pi_squared, "sum_pi_squared", fn);
  if (in.rollout_is_weights.defined()) {
    require_same_shape(r, "token_level_rewards", in.rollout_is_weights, "rollout_is_weights", fn);
  }
  const auto type = r.scalar_type();
  Prepared p;
  p.mask = mask_like(in.response_mask, r);
  p.returns = (r * p.mask).flip({-1}).cumsum(-1).flip({-1});
  at::Tensor w = 1.0 - 2.0 * in.old_log_probs.to(type).exp() + in.sum_pi_squared.to(type);
  if (in.rollout_is_weights.defined()) w = w * in.rollout_is_weights.to(type).square();
  p.path = (w * p.mask).cumsum(-1);
  return p;
}

// The rows of each group, in order of first appearance; rows failing `keep` are left out.
template <typename Keep>
std::vector<std::vector<int64_t>> group_rows(const at::Tensor& index, int64_t batch,
                                             const std::string& fn, Keep keep) {
  require_dim(index, 1, fn, "index");
  if (index.scalar_type() != at::kLong || index.size(0) != batch) {
    throw Error(fn + ": index must be int64 [" + std::to_string(batch) + "]");
  }
  const at::Tensor ids = index.to(at::kCPU).contiguous();
  const auto* p = ids.data_ptr<int64_t>();
  std::map<int64_t, std::size_t> slot;
  std::vector<std::vector<int64_t>> groups;
  for (int64_t i = 0; i < batch; ++i) {
    if (!keep(i)) continue;
    const auto [it, fresh] = slot.emplace(p[i], groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// Zero the baseline of a group's single longest response from the second-longest length on.
void zero_tail(at::Tensor& baselines, const std::vector<int64_t>& rows,
               const std::vector<int64_t>& lengths) {
  std::vector<int64_t> sorted = lengths;
  std::sort(sorted.begin(), sorted.end());
  const int64_t longest = sorted.back(), second = sorted[sorted.size() - 2];
  if (longest == second) return;
  const auto which = std::find(lengths.begin(), lengths.end(), longest) - lengths.begin();
  baselines[rows[which]].narrow(0, second, baselines.size(1) - second).zero_();
}

std::vector<int64_t> row_lengths(const at::Tensor& mask) {
  const at::Tensor lengths = mask.sum(-1).to(at::kLong).to(at::kCPU).contiguous();
  const auto* p = lengths.data_ptr<int64_t>();
  return {p, p + lengths.numel()};
}

std::vector<int64_t> pick(const std::vector<int64_t>& values, const std::vector<int64_t>& rows) {
  std::vector<int64_t> out;
  for (const int64_t r : rows) out.push_back(values[r]);
  return out;
}

at::Tensor rows_tensor(const std::vector<int64_t>& rows, const at::Tensor& like) {
  return at::tensor(rows, at::TensorOptions(at::kLong)).to(like.device());
}

}  // namespace

AdvantageResult compute_optimal_token_baseline_advantage(const OptimalTokenBaselineInputs& in,
                                                         bool handle_zero_tail, double epsilon) {
  const std::string fn = "adv_estimator optimal_token_baseline";
  c10::NoGradGuard no_grad;
  const Prepared p = prepare(in, fn);
  const int64_t batch = p.returns.size(0);
  const std::vector<int64_t> lengths = row_lengths(p.mask);
  at::Tensor baselines = at::zeros_like(p.returns);
  for (const auto& rows : group_rows(in.index, batch, fn, [](int64_t) { return true; })) {
    if (rows.size() == 1) continue;
    const at::Tensor idx = rows_tensor(rows, p.returns);
    const at::Tensor m = p.mask.index_select(0, idx);
    const at::Tensor wm = p.path.index_select(0, idx) * m;
    const at::Tensor b = (p.returns.index_select(0, idx) * wm).sum(0) / (wm.sum(0) + epsilon);
    baselines.index_copy_(0, idx, b.unsqueeze(0).expand_as(m).contiguous());
    if (handle_zero_tail) zero_tail(baselines, rows, pick(lengths, rows));
  }
  return {(p.returns - baselines) * p.mask, p.returns};
}

AdvantageResult compute_multi_turn_optimal_token_baseline_advantage(
    const OptimalTokenBaselineInputs& in, bool handle_zero_tail, double epsilon) {
  const std::string fn = "adv_estimator tir_optimal_token_baseline";
  c10::NoGradGuard no_grad;
  const Prepared p = prepare(in, fn);
  const int64_t batch = p.returns.size(0);
  const std::vector<int64_t> lengths = row_lengths(p.mask);
  const int64_t longest = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  // Each response's unmasked tokens packed to the left: positions[i] are its token positions.
  std::vector<at::Tensor> positions(batch);
  at::Tensor path = at::zeros({batch, longest}, p.returns.options());
  at::Tensor returns = at::zeros_like(path);
  for (int64_t i = 0; i < batch; ++i) {
    if (lengths[i] == 0) continue;
    positions[i] = p.mask[i].ne(0).nonzero().squeeze(-1);
    path[i].narrow(0, 0, lengths[i]).copy_(p.path[i].index_select(0, positions[i]));
    returns[i].narrow(0, 0, lengths[i]).copy_(p.returns[i].index_select(0, positions[i]));
  }
  at::Tensor baselines = at::zeros_like(path);
  const auto non_empty = [&](int64_t i) { return lengths[i] > 0; };
  for (const auto& rows : group_rows(in.index, batch, fn, non_empty)) {
    if (rows.size() == 1) continue;
    const at::Tensor idx = rows_tensor(rows, path);
    const at::Tensor w = path.index_select(0, idx);
    const at::Tensor b = (returns.index_select(0, idx) * w).sum(0) / (w.sum(0) + epsilon);
    baselines.index_copy_(0, idx, b.unsqueeze(0).expand_as(w).contiguous());
    if (handle_zero_tail) zero_tail(baselines, rows, pick(lengths, rows));
  }
  const at::Tensor packed = returns - baselines;
  at::Tensor advantages = at::zeros_like(p.returns);
  for (int64_t i = 0; i < batch; ++i) {
    if (lengths[i] == 0) continue;
    advantages[i].index_copy_(0, positions[i], packed[i].narrow(0, 0, lengths[i]));
  }
  return {advantages * p.mask, p.returns};
}

}  // namespace verlpp::algo
