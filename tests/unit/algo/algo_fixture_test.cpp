// Checks every estimator, KL mode, aggregation mode, policy loss, value loss, KL controller and
// distillation loss against tests/fixtures/algo/algo_fixture.json, made by
// tools/make_algo_fixture.py (an independent float64 PyTorch implementation of verl.md §3-4) on
// seeded random inputs. Values and gradients must agree within 1e-6. Every check runs on the CPU
// and, where a GPU is visible, again on CUDA (skipped otherwise).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "algo_test_util.h"
#include "verlpp/algo/actor_loss.h"
#include "verlpp/algo/advantage.h"
#include "verlpp/algo/agg_loss.h"
#include "verlpp/algo/distillation.h"
#include "verlpp/algo/kl_controller.h"
#include "verlpp/algo/kl_penalty.h"
#include "verlpp/algo/masked.h"
#include "verlpp/algo/policy_loss.h"
#include "verlpp/algo/rollout_correction.h"
#include "verlpp/algo/value_loss.h"
#include "verlpp/core/device.h"

namespace verlpp::algo {
namespace {

using json = nlohmann::json;
using testing::expect_near;

constexpr double kTol = 1e-6;

const json& fixture() {
  static const json doc = [] {
    const std::string path =
        std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/algo/algo_fixture.json";
    std::ifstream in(path);
    if (!in) return json();
    return json::parse(in);
  }();
  return doc;
}

void collect(const json& j, std::vector<int64_t>& shape, std::vector<double>& flat, size_t depth) {
  if (!j.is_array()) {
    flat.push_back(j.get<double>());
    return;
  }
  if (shape.size() == depth) shape.push_back(static_cast<int64_t>(j.size()));
  for (const auto& e : j) collect(e, shape, flat, depth + 1);
}

at::Tensor tensor(const json& j, at::ScalarType dtype = at::kDouble) {
  std::vector<int64_t> shape;
  std::vector<double> flat;
  collect(j, shape, flat, 0);
  return at::tensor(flat, at::kDouble).reshape(shape).to(dtype);
}

// The device the current test runs on (set by the fixture from its parameter).
at::Device g_device = at::kCPU;

at::Tensor input(const std::string& name, at::ScalarType dtype = at::kDouble) {
  return tensor(fixture().at("inputs").at(name), dtype).to(g_device);
}

at::Tensor mask() { return input("response_mask"); }

GlobalBatchInfo global_info(const json& j) {
  GlobalBatchInfo info;
  if (j.contains("dp_size")) info.dp_size = j.at("dp_size").get<int64_t>();
  if (j.contains("batch_num_tokens"))
    info.batch_num_tokens = j.at("batch_num_tokens").get<double>();
  if (j.contains("global_batch_size")) {
    info.global_batch_size = j.at("global_batch_size").get<double>();
  }
  if (j.contains("loss_scale_factor")) {
    info.loss_scale_factor = j.at("loss_scale_factor").get<double>();
  }
  return info;
}

void expect_metrics(const Metrics& actual, const json& expected, const std::string& what) {
  EXPECT_EQ(actual.size(), expected.size()) << what;
  for (const auto& [name, value] : expected.items()) {
    const auto it = actual.find(name);
    if (it == actual.end()) {
      ADD_FAILURE() << what << ": metric " << name << " missing";
      continue;
    }
    const double e = value.get<double>();
    EXPECT_NEAR(it->second, e, kTol * std::max(1.0, std::abs(e))) << what << " " << name;
  }
}

void expect_scalar(const at::Tensor& t, const json& expected, const std::string& what) {
  const double e = expected.get<double>();
  EXPECT_NEAR(t.item<double>(), e, kTol * std::max(1.0, std::abs(e))) << what;
}

at::Tensor leaf(const std::string& name) { return input(name).set_requires_grad(true); }

class AlgoFixture : public ::testing::TestWithParam<at::DeviceType> {
 protected:
  void SetUp() override {
    if (GetParam() == at::kCUDA && !cuda_available()) GTEST_SKIP() << "no CUDA device";
    g_device = at::Device(GetParam());
    ASSERT_FALSE(fixture().is_null())
        << "tests/fixtures/algo/algo_fixture.json is missing (tools/make_algo_fixture.py)";
    ASSERT_TRUE(fixture().at("failed_sections").empty()) << fixture().at("failed_sections");
  }
};

TEST_P(AlgoFixture, MaskedPrimitives) {
  const at::Tensor v = input("values");
  const at::Tensor m = mask();
  for (const auto& c : fixture().at("primitives")) {
    const std::string fn = c.at("fn");
    at::Tensor out;
    if (fn == "masked_sum") out = masked_sum(v, m);
    if (fn == "masked_mean") out = masked_mean(v, m);
    if (fn == "masked_mean_dim") out = masked_mean(v, m, -1);
    if (fn == "masked_var") out = masked_var(v, m);
    if (fn == "masked_whiten") out = masked_whiten(v, m);
    ASSERT_TRUE(out.defined()) << fn;
    expect_near(out, tensor(c.at("out")), kTol, fn);
  }
}

TEST_P(AlgoFixture, AdvantageEstimators) {
  std::set<std::string> seen;
  for (const auto& c : fixture().at("advantages")) {
    const std::string name = c.at("name");
    AdvantageInputs in;
    in.token_level_rewards = input("token_level_rewards");
    in.response_mask = mask();
    in.index = input(c.at("index_key"), at::kLong);
    in.values = input("values");
    in.reward_baselines = input("reward_baselines");
    in.old_log_probs = input("old_log_prob");
    in.sum_pi_squared = input("sum_pi_squared");
    const json& p = c.at("params");
    if (p.value("with_is_weights", false)) in.rollout_is_weights = input("rollout_is_weights");
    in.reward_values = {{"acc", input("gdpo_acc")}, {"format", input("gdpo_format")}};
    AdvantageConfig config;
    if (p.contains("gdpo_reward_keys")) {
      config.gdpo_reward_keys = p.at("gdpo_reward_keys").get<std::vector<std::string>>();
      config.gdpo_reward_weights = p.at("gdpo_reward_weights").get<std::vector<double>>();
    }
    config.gamma = p.value("gamma", 1.0);
    config.lam = p.value("lam", 1.0);
    config.norm_adv_by_std_in_grpo = p.value("norm_adv_by_std_in_grpo", true);
    const auto r = compute_advantage(name, in, config);
    const std::string what = name + " " + p.dump();
    expect_near(r.advantages, tensor(c.at("advantages")), kTol, what + " advantages");
    expect_near(r.returns, tensor(c.at("returns")), kTol, what + " returns");
    seen.insert(name);
  }
  EXPECT_EQ(seen.size(), advantage_estimators().names().size());
}

TEST_P(AlgoFixture, KlPenalties) {
  for (const auto& c : fixture().at("kl")) {
    const std::string name = c.at("name");
    at::Tensor lp = leaf("kl_log_prob");
    const at::Tensor value = kl_penalty(lp, input("kl_ref_log_prob"), name);
    expect_near(value, tensor(c.at("value")), kTol, name);
    (value * input("kl_weights")).sum().backward();
    expect_near(lp.grad(), tensor(c.at("grad_log_prob")), kTol, name + " grad");
  }
}

TEST_P(AlgoFixture, LossAggregation) {
  const at::Tensor loss = input("advantages") * input("entropy");
  for (const auto& c : fixture().at("agg")) {
    const std::string mode = c.at("mode");
    expect_scalar(agg_loss(loss, mask(), mode, global_info(c.at("global"))), c.at("loss"),
                  mode + " " + c.at("global").dump());
  }
}

RolloutCorrectionConfig correction_config(const json& j) {
  RolloutCorrectionConfig c;
  if (j.contains("rollout_is")) c.rollout_is = j.at("rollout_is").get<std::string>();
  c.rollout_is_threshold = j.value("rollout_is_threshold", 2.0);
  c.rollout_is_batch_normalize = j.value("rollout_is_batch_normalize", false);
  if (j.contains("rollout_rs")) c.rollout_rs = j.at("rollout_rs").get<std::string>();
  if (j.contains("rollout_rs_threshold")) {
    const json& t = j.at("rollout_rs_threshold");
    c.rollout_rs_threshold = t.is_string() ? t.get<std::string>() : t.dump();
  }
  c.loss_type = j.value("loss_type", std::string("ppo_clip"));
  return c;
}

PolicyLossConfig policy_config(const json& p) {
  PolicyLossConfig c;
  if (p.contains("rollout_correction")) {
    c.rollout_correction = correction_config(p.at("rollout_correction"));
  }
  c.clip_ratio_low = p.value("clip_ratio_low", 0.2);
  c.clip_ratio_high = p.value("clip_ratio_high", 0.2);
  c.clip_ratio_c = p.value("clip_ratio_c", 3.0);
  c.tau_pos = p.value("tau_pos", 1.0);
  c.tau_neg = p.value("tau_neg", 1.05);
  c.clip_cov_ratio = p.value("clip_cov_ratio", 0.0002);
  c.clip_cov_lb = p.value("clip_cov_lb", 1.0);
  c.clip_cov_ub = p.value("clip_cov_ub", 5.0);
  c.kl_cov_ratio = p.value("kl_cov_ratio", 0.0002);
  c.ppo_kl_coef = p.value("ppo_kl_coef", 0.1);
  if (p.contains("dro_beta")) c.dro_beta = p.at("dro_beta").get<double>();
  c.loss_agg_mode = p.value("loss_agg_mode", std::string("token-mean"));
  return c;
}

TEST_P(AlgoFixture, PolicyLosses) {
  std::set<std::string> seen;
  for (const auto& c : fixture().at("policy")) {
    const std::string mode = c.at("loss_mode");
    PolicyLossInputs in;
    in.old_log_prob = input(c.value("old_key", std::string("old_log_prob")));
    in.log_prob = leaf("log_prob");
    in.advantages = input("advantages");
    in.response_mask = mask();
    if (c.at("rollout_is_weights").get<bool>()) in.rollout_is_weights = input("rollout_is_weights");
    const auto r =
        compute_policy_loss(mode, in, policy_config(c.at("params")), global_info(c.at("global")));
    const std::string what = mode + " " + c.at("params").dump() + " " + c.at("global").dump();
    expect_scalar(r.loss, c.at("loss"), what);
    expect_metrics(r.metrics, c.at("metrics"), what);
    r.loss.backward();
    expect_near(in.log_prob.grad(), tensor(c.at("grad_log_prob")), kTol, what + " grad");
    seen.insert(mode);
  }
  EXPECT_EQ(seen.size(), policy_losses().names().size());
}

TEST_P(AlgoFixture, RolloutCorrection) {
  for (const auto& c : fixture().at("rollout_correction")) {
    const std::string what = "rollout correction " + c.at("config").dump();
    const RolloutCorrectionResult r =
        compute_rollout_correction(input("old_log_prob"), input("rollout_log_prob"), mask(),
                                   correction_config(c.at("config")));
    EXPECT_EQ(r.rollout_is_weights.defined(), !c.at("rollout_is_weights").is_null()) << what;
    if (r.rollout_is_weights.defined()) {
      expect_near(r.rollout_is_weights, tensor(c.at("rollout_is_weights")), kTol, what + " w");
    }
    expect_near(r.response_mask, tensor(c.at("response_mask")), 0.0, what + " mask");
    expect_metrics(r.metrics, c.at("metrics"), what);
  }
}

TEST_P(AlgoFixture, ActorLoss) {
  for (const auto& c : fixture().at("actor_loss")) {
    ActorLossInputs in;
    in.policy.old_log_prob = input("old_log_prob");
    in.policy.log_prob = leaf("log_prob");
    in.policy.advantages = input("advantages");
    in.policy.response_mask = mask();
    in.entropy = input("entropy");
    in.ref_log_prob = input("ref_log_prob");
    ActorLossConfig config;
    config.policy.loss_agg_mode = c.at("loss_agg_mode");
    config.entropy_coeff = c.at("entropy_coeff");
    config.use_kl_loss = true;
    config.kl_loss_coef = c.at("kl_loss_coef");
    config.kl_loss_type = c.at("kl_loss_type");
    const auto r = ppo_loss(in, config, global_info(c.at("global")));
    const std::string what = "actor " + std::string(c.at("loss_agg_mode"));
    expect_scalar(r.loss, c.at("loss"), what);
    expect_metrics(r.metrics, c.at("metrics"), what);
    r.loss.backward();
    expect_near(in.policy.log_prob.grad(), tensor(c.at("grad_log_prob")), kTol, what + " grad");
  }
}

TEST_P(AlgoFixture, ValueLoss) {
  for (const auto& c : fixture().at("value")) {
    at::Tensor vpreds = leaf("vpreds");
    const auto r = compute_value_loss(vpreds, input("returns"), input("values"), mask(),
                                      c.at("cliprange_value"), c.at("loss_agg_mode"),
                                      global_info(c.at("global")));
    const std::string what = "value " + c.dump().substr(0, 80);
    expect_scalar(r.loss, c.at("loss"), what);
    expect_metrics(r.metrics, c.at("metrics"), what);
    r.loss.backward();
    expect_near(vpreds.grad(), tensor(c.at("grad_vpreds")), kTol, what + " grad");
  }
}

TEST_P(AlgoFixture, KlControllerAndKlInReward) {
  for (const auto& c : fixture().at("kl_ctrl")) {
    auto ctrl = make_kl_controller(
        {c.at("type"), c.at("kl_coef"), c.at("horizon").get<double>(), c.at("target_kl")});
    const auto& values = c.at("values");
    for (size_t i = 0; i < values.size(); ++i) {
      ctrl->update(c.at("current_kls")[i], c.at("n_steps").get<int64_t>());
      EXPECT_NEAR(ctrl->value(), values[i].get<double>(), 1e-12) << i;
    }
  }
  for (const auto& c : fixture().at("kl_in_reward")) {
    FixedKLController ctrl(c.at("beta"));
    const auto r = apply_kl_penalty(input("token_level_rewards"), input("old_log_prob"),
                                    input("ref_log_prob"), mask(), ctrl, c.at("kl_penalty"));
    expect_near(r.token_level_rewards, tensor(c.at("token_level_rewards")), kTol, "rewards");
    EXPECT_NEAR(r.current_kl, c.at("current_kl").get<double>(), kTol);
  }
}

// A leaf's gradient against the fixture's; a leaf the loss does not reach must have expected zeros.
void expect_grad(const at::Tensor& leaf_tensor, const json& expected, const std::string& what) {
  const at::Tensor want = tensor(expected);
  const at::Tensor got = leaf_tensor.grad().defined() ? leaf_tensor.grad() : at::zeros_like(want);
  expect_near(got, want, kTol, what);
}

DistillationLossConfig distillation_config(const json& j) {
  DistillationLossConfig c;
  c.loss_mode = j.at("loss_mode");
  c.use_policy_gradient = j.at("use_policy_gradient");
  if (!j.at("loss_max_clamp").is_null()) c.loss_max_clamp = j.at("loss_max_clamp").get<double>();
  if (j.contains("log_prob_min_clamp") && !j.at("log_prob_min_clamp").is_null()) {
    c.log_prob_min_clamp = j.at("log_prob_min_clamp").get<double>();
  }
  c.clip_ratio_low = j.at("clip_ratio_low").get<double>();
  c.clip_ratio_high = j.at("clip_ratio_high").get<double>();
  return c;
}

TEST_P(AlgoFixture, DistillationLosses) {
  for (const auto& c : fixture().at("distillation")) {
    const DistillationLossConfig config = distillation_config(c.at("config"));
    const GlobalBatchInfo info = global_info(c.at("global"));
    const std::string agg = c.at("loss_agg_mode");
    const std::string what = "distillation " + c.at("config").dump() + " " + agg;
    if (config.loss_mode == "forward_kl_topk") {
      at::Tensor logits = leaf("student_logits");
      at::Tensor lp = leaf("log_prob");
      const auto d =
          forward_kl_topk(logits, input("teacher_ids", at::kLong), input("teacher_logprobs"),
                          mask(), c.at("temperature"), config.log_prob_min_clamp);
      expect_near(d.divergence, tensor(c.at("divergence")), kTol, what + " D");
      auto r =
          distillation_loss(d.divergence, mask(), config, agg, info, lp, input("old_log_prob"));
      r.metrics.insert(d.metrics.begin(), d.metrics.end());
      expect_scalar(r.loss, c.at("loss"), what);
      expect_metrics(r.metrics, c.at("metrics"), what);
      r.loss.backward();
      expect_grad(logits, c.at("grad_student_logits"), what + " logits grad");
      expect_grad(lp, c.at("grad_log_prob"), what + " log_prob grad");
    } else {
      at::Tensor lp = leaf("log_prob");
      const auto r = distillation_loss_from_log_probs(lp, input("teacher_token_log_prob"), mask(),
                                                      config, agg, info, input("old_log_prob"));
      expect_scalar(r.loss, c.at("loss"), what);
      expect_metrics(r.metrics, c.at("metrics"), what);
      r.loss.backward();
      expect_near(lp.grad(), tensor(c.at("grad_log_prob")), kTol, what + " grad");
    }
  }
}

// Distillation combined with the PPO actor loss (use_task_rewards, distillation_loss_coef).
TEST_P(AlgoFixture, DistillationCombinedWithPpoLoss) {
  for (const auto& c : fixture().at("distillation_ppo")) {
    DistillationLossConfig config = distillation_config(c.at("config"));
    config.use_task_rewards = c.at("config").at("use_task_rewards");
    config.distillation_loss_coef = c.at("config").at("distillation_loss_coef");
    const GlobalBatchInfo info = global_info(c.at("global"));
    const std::string what = "distillation+ppo " + c.at("config").dump();
    ActorLossConfig actor;
    actor.policy.loss_agg_mode = c.at("loss_agg_mode");
    at::Tensor lp = leaf("log_prob");
    at::Tensor logits = leaf("student_logits");
    ActorLossInputs in;
    in.policy.log_prob = lp;
    in.policy.old_log_prob = input("old_log_prob");
    in.policy.advantages = input("advantages");
    in.policy.response_mask = mask();
    at::Tensor d;
    Metrics topk_metrics;
    if (distillation_uses_topk(config.loss_mode)) {
      TopkDivergence t =
          forward_kl_topk(logits, input("teacher_ids", at::kLong), input("teacher_logprobs"),
                          mask(), 1.0, config.log_prob_min_clamp);
      d = t.divergence;
      topk_metrics = t.metrics;
    } else {
      d = kl_penalty(lp, input("teacher_token_log_prob"), config.loss_mode);
    }
    auto r = distillation_ppo_loss(in, d, actor, config, info);
    r.metrics.insert(topk_metrics.begin(), topk_metrics.end());
    expect_scalar(r.loss, c.at("loss"), what);
    expect_metrics(r.metrics, c.at("metrics"), what);
    r.loss.backward();
    expect_near(lp.grad(), tensor(c.at("grad_log_prob")), kTol, what + " grad");
    if (c.contains("grad_student_logits")) {
      expect_grad(logits, c.at("grad_student_logits"), what + " logits grad");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, AlgoFixture, ::testing::Values(at::kCPU, at::kCUDA),
                         [](const ::testing::TestParamInfo<at::DeviceType>& info) {
                           return info.param == at::kCPU ? std::string("cpu") : std::string("cuda");
                         });

}  // namespace
}  // namespace verlpp::algo
