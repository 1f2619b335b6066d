#include "verlpp/algo/rollout_probs_diff.h"

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "verlpp/core/error.h"

namespace verlpp::algo {

Metrics rollout_probs_diff_metrics(const at::Tensor& rollout_log_probs,
                                   const at::Tensor& old_log_probs,
                                   const at::Tensor& response_mask) {
  if (rollout_log_probs.sizes() != old_log_probs.sizes() ||
      response_mask.sizes() != old_log_probs.sizes()) {
    throw Error(fmt::format(
        "rollout_probs_diff: rollout_log_probs [{}], old_log_probs [{}] and response_mask [{}] "
        "must have one shape",
        fmt::join(rollout_log_probs.sizes(), ", "), fmt::join(old_log_probs.sizes(), ", "),
        fmt::join(response_mask.sizes(), ", ")));
  }
  const at::Tensor mask = response_mask.to(at::kCPU).ne(0);
  const at::Tensor rollout = rollout_log_probs.detach().to(at::kCPU, at::kDouble).exp();
  const at::Tensor actor = old_log_probs.detach().to(at::kCPU, at::kDouble).exp();
  const at::Tensor x = actor.masked_select(mask), y = rollout.masked_select(mask);
  const double nan = std::nan("");
  if (x.numel() == 0) {
    return {{"training/rollout_probs_diff_valid", 0.0},
            {"training/rollout_probs_diff_max", nan},
            {"training/rollout_probs_diff_mean", nan},
            {"training/rollout_probs_diff_std", nan},
            {"training/rollout_actor_probs_pearson_corr", nan}};
  }
  const at::Tensor diff = (x - y).abs();
  const at::Tensor dx = x - x.mean(), dy = y - y.mean();
  const double spread = std::sqrt((dx * dx).sum().item<double>() * (dy * dy).sum().item<double>());
  return {{"training/rollout_probs_diff_valid", 1.0},
          {"training/rollout_probs_diff_max", diff.max().item<double>()},
          {"training/rollout_probs_diff_mean", diff.mean().item<double>()},
          {"training/rollout_probs_diff_std", x.numel() > 1 ? diff.std().item<double>() : nan},
          {"training/rollout_actor_probs_pearson_corr",
           spread > 0 ? (dx * dy).sum().item<double>() / spread : nan}};
}

}  // namespace verlpp::algo
