#include "verlpp/algo/kl_controller.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>

#include <algorithm>

#include "verlpp/algo/checks.h"
#include "verlpp/algo/kl_penalty.h"
#include "verlpp/algo/masked.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {

AdaptiveKLController::AdaptiveKLController(double init_kl_coef, double target_kl, double horizon)
    : KLController(init_kl_coef), target_(target_kl), horizon_(horizon) {
  if (!(target_kl > 0)) throw Error("algorithm.kl_ctrl.target_kl must be > 0 for adaptive control");
  if (!(horizon > 0)) throw Error("algorithm.kl_ctrl.horizon must be > 0 for adaptive control");
}

void AdaptiveKLController::update(double current_kl, int64_t n_steps) {
  const double error = std::clamp(current_kl / target_ - 1.0, -0.2, 0.2);
  value_ *= 1.0 + error * static_cast<double>(n_steps) / horizon_;
}

std::unique_ptr<KLController> make_kl_controller(const KLControlConfig& config) {
  if (config.type == "fixed") return std::make_unique<FixedKLController>(config.kl_coef);
  if (config.type == "adaptive") {
    return std::make_unique<AdaptiveKLController>(config.kl_coef, config.target_kl, config.horizon);
  }
  throw Error("unknown algorithm.kl_ctrl.type '" + config.type + "'; valid: fixed, adaptive");
}

KLInRewardResult apply_kl_penalty(const at::Tensor& token_level_scores,
                                  const at::Tensor& old_log_prob, const at::Tensor& ref_log_prob,
                                  const at::Tensor& response_mask, KLController& controller,
                                  const std::string& kl_penalty_name) {
  const std::string fn = "apply_kl_penalty";
  c10::NoGradGuard no_grad;
  require_dim(token_level_scores, 2, fn, "token_level_scores");
  require_same_shape(token_level_scores, "token_level_scores", response_mask, "response_mask", fn);
  require_same_shape(token_level_scores, "token_level_scores", old_log_prob, "old_log_prob", fn);
  const at::Tensor m = mask_like(response_mask, token_level_scores);
  const at::Tensor kld = kl_penalty(old_log_prob.to(m.scalar_type()),
                                    ref_log_prob.to(m.scalar_type()), kl_penalty_name) *
                         m;
  const double beta = controller.value();
  KLInRewardResult result;
  result.token_level_rewards = token_level_scores - beta * kld;
  result.current_kl =
      token_level_scores.size(0) == 0 ? 0.0 : masked_mean(kld, m, -1).mean().item<double>();
  controller.update(result.current_kl, token_level_scores.size(0));
  result.metrics = {{"actor/reward_kl_penalty", result.current_kl},
                    {"actor/reward_kl_penalty_coeff", beta}};
  return result;
}

}  // namespace verlpp::algo
