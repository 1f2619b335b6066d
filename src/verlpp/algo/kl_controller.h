// KL coefficient controllers and the KL penalty in the reward (verl: core_algos.py
// FixedKLController / AdaptiveKLController / get_kl_controller, ray_trainer.py apply_kl_penalty;
// verl.md §3.7). Adaptive control follows Ziegler et al. 2019 (arXiv 1909.08593).
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <string>

#include "verlpp/algo/metrics.h"

namespace verlpp::algo {

// algorithm.kl_ctrl with verl's defaults.
struct KLControlConfig {
  std::string type = "fixed";  // fixed | adaptive
  double kl_coef = 0.001;
  double horizon = 10000;
  double target_kl = 0.1;
};

class KLController {
 public:
  virtual ~KLController() = default;
  double value() const { return value_; }
  // Restores a saved coefficient (checkpoint resume).
  void set_value(double value) { value_ = value; }
  // current_kl: the batch's mean KL; n_steps: the batch size.
  virtual void update(double current_kl, int64_t n_steps) = 0;

 protected:
  explicit KLController(double value) : value_(value) {}
  double value_;
};

// value stays kl_coef.
class FixedKLController : public KLController {
 public:
  explicit FixedKLController(double kl_coef) : KLController(kl_coef) {}
  void update(double, int64_t) override {}
};

// e = clip(current_kl/target_kl - 1, -0.2, 0.2); value *= 1 + e*n_steps/horizon.
class AdaptiveKLController : public KLController {
 public:
  // Throws verlpp::Error unless target_kl > 0 and horizon > 0.
  AdaptiveKLController(double init_kl_coef, double target_kl, double horizon);
  void update(double current_kl, int64_t n_steps) override;

 private:
  double target_;
  double horizon_;
};

// A controller for algorithm.kl_ctrl; an unknown type throws verlpp::Error listing the valid ones.
std::unique_ptr<KLController> make_kl_controller(const KLControlConfig& config);

struct KLInRewardResult {
  at::Tensor token_level_rewards;  // [batch, response_length]
  double current_kl = 0;           // mean over sequences of the per-sequence masked mean KL
  Metrics metrics;                 // actor/reward_kl_penalty, actor/reward_kl_penalty_coeff
};

// algorithm.use_kl_in_reward: kld = kl_penalty(old_log_prob, ref_log_prob, kl_penalty) * mask;
// token_level_rewards = token_level_scores - beta*kld with beta = controller.value();
// current_kl = mean_i(masked_mean(kld, mask, -1)); then controller.update(current_kl, batch).
// The metrics carry verl's full names (they are trainer-level) and beta before the update.
KLInRewardResult apply_kl_penalty(const at::Tensor& token_level_scores,
                                  const at::Tensor& old_log_prob, const at::Tensor& ref_log_prob,
                                  const at::Tensor& response_mask, KLController& controller,
                                  const std::string& kl_penalty = "kl");

}  // namespace verlpp::algo
