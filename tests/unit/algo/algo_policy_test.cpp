// Hand-worked policy losses (verl.md §3.3), actor loss assembly (§3.5), value loss (§3.6) and
// distillation losses (§4), with ratios on both sides of each clip.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "algo_test_util.h"
#include "verlpp/algo/actor_loss.h"
#include "verlpp/algo/distillation.h"
#include "verlpp/algo/policy_loss.h"
#include "verlpp/algo/value_loss.h"
#include "verlpp/core/error.h"

namespace verlpp::algo {
namespace {

using testing::expect_near;
using testing::item;
using testing::mat;
using testing::vec;

// old_log_prob = 0, so ratio = exp(log_prob) and log_prob = log(ratio).
PolicyLossInputs ratios(const std::vector<double>& ratio, const std::vector<double>& advantages) {
  std::vector<double> lp;
  for (double r : ratio) lp.push_back(std::log(r));
  PolicyLossInputs in;
  in.log_prob = mat({lp}).set_requires_grad(true);
  in.old_log_prob = at::zeros_like(in.log_prob);
  in.advantages = mat({advantages});
  in.response_mask = at::ones_like(in.log_prob);
  return in;
}

TEST(AlgoPolicyLoss, VanillaBothSidesOfEachClip) {
  // eps 0.2, c = 3. Tokens (ratio, A) -> per-token loss:
  //   (1.5, +1): L1 -1.5, L2 -1.2 -> -1.2 clipped high        (pg_clipfrac)
  //   (0.5, +1): L1 -0.5, L2 -0.8 -> -0.5 unclipped
  //   (0.5, -1): L1  0.5, L2  0.8 -> 0.8 clipped low         (pg_clipfrac), below L3 = 3
  //   (4.0, -1): L1  4.0, L2  1.2 -> 4 unclipped, dual clip -> 3 (pg_clipfrac_lower)
  //   (1.1, -1): 1.1 inside;  (1.1, +2): -2.2 inside
  PolicyLossInputs in = ratios({1.5, 0.5, 0.5, 4.0, 1.1, 1.1}, {1, 1, -1, -1, -1, 2});
  const auto r = compute_policy_loss("vanilla", in);
  EXPECT_NEAR(item(r.loss), (-1.2 - 0.5 + 0.8 + 3 + 1.1 - 2.2) / 6, 1e-12);
  EXPECT_NEAR(r.metrics.at("pg_clipfrac"), 2 / (6 + 1e-8), 1e-12);
  EXPECT_NEAR(r.metrics.at("pg_clipfrac_lower"), 1 / (6 + 1e-8), 1e-12);
  EXPECT_NEAR(r.metrics.at("ppo_kl"), -std::log(1.5 * 0.25 * 4 * 1.21) / (6 + 1e-8), 1e-12);
  r.loss.backward();
  // d/dlp of -A*ratio is -A*ratio where unclipped; 0 where clipped or dual-clipped.
  expect_near(in.log_prob.grad(), {{0, -0.5 / 6, 0, 0, 1.1 / 6, -2.2 / 6}}, 1e-12, "grad");
}

TEST(AlgoPolicyLoss, VanillaAsymmetricClipAndWeights) {
  PolicyLossConfig c;
  c.clip_ratio_low = 0.1;
  c.clip_ratio_high = 0.28;
  c.clip_ratio_c = 1.5;
  PolicyLossInputs in = ratios({1.25, 0.85, 2.0}, {1, -1, -1});
  in.rollout_is_weights = mat({{2, 1, 0.5}});
  // (1.25,+1): inside 1.28 -> -1.25; (0.85,-1): L2 = 0.9 -> 0.9; (2,-1): 2 -> dual clip 1.5.
  const auto r = compute_policy_loss("vanilla", in, c);
  EXPECT_NEAR(item(r.loss), (-2.5 + 0.9 + 0.75) / 3, 1e-12);
}

TEST(AlgoPolicyLoss, VanillaClampsTheLogRatio) {
  PolicyLossInputs in = ratios({1, 1}, {1, -1});
  in.log_prob = mat({{30, 30}});  // delta 30 -> 20
  const auto r = compute_policy_loss("vanilla", in);
  EXPECT_NEAR(r.metrics.at("ppo_kl"), -20 * 2 / (2 + 1e-8), 1e-9);
  EXPECT_NEAR(item(r.loss), (-1.2 + 3) / 2, 1e-12);
}

TEST(AlgoPolicyLoss, VanillaRejectsClipRatioCNotAboveOne) {
  PolicyLossConfig c;
  c.clip_ratio_c = 1.0;
  EXPECT_THROW(compute_policy_loss("vanilla", ratios({1}, {1}), c), Error);
}

TEST(AlgoPolicyLoss, FullyMaskedRowsDoNotCount) {
  PolicyLossInputs in = ratios({1.5, 0.5, 0.5, 4.0}, {1, 1, -1, -1});
  in.log_prob = in.log_prob.detach().reshape({2, 2});
  in.old_log_prob = in.old_log_prob.reshape({2, 2});
  in.advantages = in.advantages.reshape({2, 2});
  in.response_mask = mat({{1, 1}, {0, 0}});
  PolicyLossConfig c;
  for (const std::string mode : {"token-mean", "seq-mean-token-mean", "seq-mean-token-sum"}) {
    c.loss_agg_mode = mode;
    const double per_token_sum = -1.2 - 0.5;
    const double expected = mode == "token-mean"            ? per_token_sum / 2
                            : mode == "seq-mean-token-mean" ? per_token_sum / (2 + 1e-8)
                                                            : per_token_sum;
    EXPECT_NEAR(item(compute_policy_loss("vanilla", in, c).loss), expected, 1e-12) << mode;
  }
}

TEST(AlgoPolicyLoss, GspoSequenceRatio) {
  // log ratios ln 1.2 and 0: sequence ratio sqrt(1.2), inside the clip; A = +1.
  PolicyLossInputs in = ratios({1.2, 1.0}, {1, 1});
  const auto r = compute_policy_loss("gspo", in);
  // Always seq-mean-token-mean: the sequence's token mean divides by (2 + 1e-8).
  const double n = 2 + 1e-8;
  EXPECT_NEAR(item(r.loss), -std::sqrt(1.2) * 2 / n, 1e-12);
  EXPECT_EQ(r.metrics.at("pg_clipfrac"), 0.0);
  r.loss.backward();
  expect_near(in.log_prob.grad(), {{-std::sqrt(1.2) / n, -std::sqrt(1.2) / n}}, 1e-12, "grad");
  // sequence ratio 1.5 -> clipped at 1.2, no gradient.
  PolicyLossInputs clipped = ratios({1.5, 1.5}, {1, 1});
  const auto rc = compute_policy_loss("gspo", clipped);
  EXPECT_NEAR(item(rc.loss), -1.2 * 2 / n, 1e-12);
  EXPECT_NEAR(rc.metrics.at("pg_clipfrac"), 1.0, 1e-7);
}

TEST(AlgoPolicyLoss, SapoGate) {
  // ratio 1: sigmoid(0)*4/tau = 2/tau; A > 0 uses tau_pos = 1, A < 0 tau_neg = 1.05.
  const auto r = compute_policy_loss("sapo", ratios({1, 1}, {1, -1}));
  EXPECT_NEAR(item(r.loss), (-2 + 2 / 1.05) / 2, 1e-9);
}

TEST(AlgoPolicyLoss, Gpg) {
  PolicyLossInputs in;
  in.log_prob = mat({{-1, -2}});
  in.old_log_prob = mat({{0, 0}});
  in.advantages = mat({{1, 0.5}});
  in.response_mask = mat({{1, 1}});
  const auto r = compute_policy_loss("gpg", in);
  EXPECT_NEAR(item(r.loss), 1.0, 1e-15);
  EXPECT_TRUE(r.metrics.empty());
}

TEST(AlgoPolicyLoss, DppoTrustRegions) {
  // q = 0.5, p = 0.8 (ratio 1.6), p - q = 0.3. A > 0: 0.3 > eps_h = 0.2 -> masked out.
  // A < 0: 0.3 >= -0.2 -> kept: loss = -A * 1.6 * log(0.8).
  PolicyLossInputs in;
  in.old_log_prob = mat({{std::log(0.5), std::log(0.5)}});
  in.log_prob = mat({{std::log(0.8), std::log(0.8)}});
  in.advantages = mat({{1, -1}});
  in.response_mask = mat({{1, 1}});
  const auto tv = compute_policy_loss("dppo_tv", in);
  EXPECT_NEAR(item(tv.loss), 1.6 * std::log(0.8) / 2, 1e-12);
  EXPECT_NEAR(tv.metrics.at("pg_clipfrac"), 0.5, 1e-8);
  // Binary KL: 0.5*ln(0.5/0.8) + 0.5*ln(0.5/0.2) = 0.2231 > 0.2 and p > q -> masked for A > 0.
  const auto kl = compute_policy_loss("dppo_kl", in);
  EXPECT_NEAR(item(kl.loss), 1.6 * std::log(0.8) / 2, 1e-12);
  PolicyLossConfig wide;
  wide.clip_ratio_high = 0.3;  // 0.2231 <= 0.3 -> kept
  EXPECT_NEAR(item(compute_policy_loss("dppo_kl", in, wide).loss),
              (-1.6 * std::log(0.8) + 1.6 * std::log(0.8)) / 2, 1e-12);
}

// A = 1, -1, 1, -1 and log_prob = -1, -3, -1, -1 (mean -1.5): cov = 0.5, 1.5, 0.5, -0.5.
PolicyLossInputs cov_inputs(double shift) {
  PolicyLossInputs in;
  in.log_prob = mat({{-1, -3, -1, -1}});
  in.old_log_prob = in.log_prob - shift;
  in.advantages = mat({{1, -1, 1, -1}});
  in.response_mask = mat({{1, 1, 1, 1}});
  return in;
}

TEST(AlgoPolicyLoss, ClipCovZeroesTheCandidate) {
  PolicyLossConfig c;
  c.clip_cov_ratio = 0.25;  // one token; the only one in (1, 5) is token 1
  const auto r = compute_policy_loss("clip_cov", cov_inputs(0), c);
  EXPECT_NEAR(item(r.loss), (-1 + 0 - 1 + 1) / 4.0, 1e-12);
  EXPECT_NEAR(r.metrics.at("pg_clipfrac"), 0.25, 1e-8);
  c.clip_cov_lb = 0.4;  // candidates 0, 1, 2; one of them chosen at random
  const auto random = compute_policy_loss("clip_cov", cov_inputs(0), c);
  EXPECT_NEAR(random.metrics.at("pg_clipfrac"), 0.25, 1e-8);
  const std::set<double> possible = {0.25, -0.25};  // token 1 zeroed, or token 0 or 2
  EXPECT_TRUE(possible.count(std::round(item(random.loss) * 4) / 4)) << item(random.loss);
}

TEST(AlgoPolicyLoss, KlCovPenalisesTheTopCovariance) {
  // delta = 0.1 everywhere; token 1 (cov 1.5) gets + 0.1*|0.1|; sum_t -A*e^0.1 = 0.
  const auto r = compute_policy_loss("kl_cov", cov_inputs(0.1));
  EXPECT_NEAR(item(r.loss), 0.01 / 4, 1e-12);
  EXPECT_NEAR(r.metrics.at("ppo_kl"), 0.1 * 4 / (4 + 1e-8), 1e-12);
}

TEST(AlgoPolicyLoss, GeoMeanClipsBySign) {
  // delta 0.5, -0.1, eps 0.2. A > 0: min(delta, clamp) = 0.2, -0.1 -> rho = exp(0.1/2).
  PolicyLossInputs in;
  in.old_log_prob = mat({{-1, -1}, {-1, -1}});
  in.log_prob = mat({{-0.5, -1.1}, {-0.5, -1.1}});
  in.advantages = mat({{1, 1}, {-1, -1}});
  in.response_mask = mat({{1, 1}, {1, 1}});
  // A < 0: max(delta, clamp) = 0.5, -0.1 -> rho = exp(0.4/2); loss row = +rho.
  const double n = 2 + 1e-8;
  const double expected = (-(2 / n) * std::exp(0.1 / n) + (2 / n) * std::exp(0.4 / n)) / 2;
  const auto r = compute_policy_loss("geo_mean", in);
  EXPECT_NEAR(item(r.loss), expected, 1e-12);
  // verl's clip fractions: delta 0.5 is clamped in both rows; A > 0 in row 0 (1 of 4 tokens),
  // A < 0 in row 1 (1 of 4).
  EXPECT_NEAR(r.metrics.at("pg_clipfrac"), 0.25, 1e-7);
  EXPECT_NEAR(r.metrics.at("pg_clipfrac_lower"), 0.25, 1e-7);
}

TEST(AlgoPolicyLoss, DroAndCispo) {
  PolicyLossInputs in;
  in.old_log_prob = mat({{-1.5}});
  in.log_prob = mat({{-1.0}}).set_requires_grad(true);
  in.advantages = mat({{2}});
  in.response_mask = mat({{1}});
  PolicyLossConfig c;
  EXPECT_THROW(compute_policy_loss("dro", in, c), Error);
  c.dro_beta = 0.4;
  EXPECT_NEAR(item(compute_policy_loss("dro", in, c).loss), -(-2 - 0.5 * 0.4 * 0.25), 1e-12);
  // cispo: ratio e^0.5 = 1.6487 clipped to 1.2: loss = -1.2*2*(-1) = 2.4, gradient -2.4.
  const auto r = compute_policy_loss("cispo", in);
  EXPECT_NEAR(item(r.loss), 2.4, 1e-12);
  EXPECT_NEAR(r.metrics.at("pg_clipfrac"), 1.0, 1e-7);
  EXPECT_EQ(r.metrics.at("pg_clipfrac_lower"), 0.0);
  r.loss.backward();
  EXPECT_NEAR(item(in.log_prob.grad()), -2.4, 1e-12);
}

TEST(AlgoPolicyLoss, UnknownModes) {
  try {
    compute_policy_loss("ppo", ratios({1}, {1}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vanilla"), std::string::npos) << e.what();
  }
}

TEST(AlgoActorLoss, EntropyBonusAndKlLoss) {
  ActorLossInputs in;
  in.policy = ratios({1, 1}, {1, 1});  // pg loss -1 per token
  in.entropy = mat({{0.5, 1.5}});
  in.ref_log_prob = mat({{-0.2, -0.2}});  // k1 = 0.2
  ActorLossConfig c;
  c.entropy_coeff = 0.01;
  c.use_kl_loss = true;
  c.kl_loss_type = "k1";
  const auto r = ppo_loss(in, c);
  EXPECT_NEAR(item(r.loss), -1 - 0.01 * 1 + 0.001 * 0.2, 1e-12);
  EXPECT_NEAR(r.metrics.at("pg_loss"), -1, 1e-12);
  EXPECT_NEAR(r.metrics.at("entropy_loss"), 1, 1e-12);
  EXPECT_NEAR(r.metrics.at("kl_loss"), 0.2, 1e-12);
  EXPECT_EQ(r.metrics.at("kl_coef"), 0.001);
  c.kl_loss_type = "k9";
  EXPECT_THROW(ppo_loss(in, c), Error);
}

TEST(AlgoValueLoss, ClippedValueLoss) {
  // cliprange 0.5 around old values 0:
  //   token 0: vpred 1 -> clipped 0.5; (1-2)^2 = 1 < (0.5-2)^2 = 2.25 -> 2.25 (clipped above)
  //   token 1: vpred 0 inside; (0-1)^2 = 1 both ways
  //   token 2: vpred -1 -> clipped -0.5; (-1+3)^2 = 4 < (-0.5+3)^2 = 6.25 -> 6.25 (clipped below)
  //   token 3: masked
  at::Tensor vpreds = mat({{1, 0, -1, 7}}).set_requires_grad(true);
  const auto r =
      compute_value_loss(vpreds, mat({{2, 1, -3, 0}}), mat({{0, 0, 0, 0}}), mat({{1, 1, 1, 0}}));
  EXPECT_NEAR(item(r.loss), 0.5 * (2.25 + 1 + 6.25) / 3, 1e-12);
  EXPECT_NEAR(r.metrics.at("vf_clipfrac"), 2 / (3 + 1e-8), 1e-12);
  EXPECT_NEAR(r.metrics.at("vpred_mean"), 0, 1e-12);
  EXPECT_NEAR(r.metrics.at("vf_loss"), item(r.loss), 0);
  r.loss.backward();
  // clipped tokens get no gradient; token 1: 0.5 * 2*(0-1) / 3 tokens.
  expect_near(vpreds.grad(), {{0, -1.0 / 3, 0, 0}}, 1e-12, "grad");
}

TEST(AlgoDistillation, PolicyGradientK1WithClamp) {
  DistillationLossConfig c;
  c.loss_mode = "k1";
  c.use_policy_gradient = true;
  c.loss_max_clamp = 0.4;
  // D = log_prob - teacher = 0.5, -0.3 -> clamped 0.4, -0.3; A = -D; ratio 1: loss -A.
  const at::Tensor lp = mat({{-1, -1}});
  const auto r = distillation_loss_from_log_probs(lp, mat({{-1.5, -0.7}}), mat({{1, 1}}), c,
                                                  "token-mean", {}, lp);
  EXPECT_NEAR(item(r.loss), (0.4 - 0.3) / 2, 1e-12);
  EXPECT_NEAR(r.metrics.at("distillation/loss_max"), 0.5, 1e-12);
  EXPECT_NEAR(r.metrics.at("distillation/loss_min"), -0.3, 1e-12);
  // abs_loss: mean |D| before the clamp, as verl reports it: (0.5 + 0.3) / 2.
  EXPECT_NEAR(r.metrics.at("distillation/abs_loss"), 0.4, 1e-8);
  EXPECT_EQ(r.metrics.count("distillation/pg_clipfrac"), 1u);
}

TEST(AlgoDistillation, SupervisedK3) {
  DistillationLossConfig c;  // k3, no policy gradient
  const auto r = distillation_loss_from_log_probs(mat({{-1, -1}}), mat({{-2, -1}}), mat({{1, 0}}),
                                                  c, "token-sum");
  EXPECT_NEAR(item(r.loss), std::exp(-1.0), 1e-12);
}

TEST(AlgoDistillation, ConfigChecks) {
  DistillationLossConfig c;
  c.loss_mode = "k1";
  EXPECT_THROW(validate_distillation_loss_config(c), Error);  // k1 needs policy gradient
  c.use_policy_gradient = true;
  validate_distillation_loss_config(c);
  c.policy_loss_mode = "gspo";
  EXPECT_THROW(validate_distillation_loss_config(c), Error);
  c.policy_loss_mode = "vanilla";
  c.loss_mode = "reverse_kl";
  EXPECT_THROW(validate_distillation_loss_config(c), Error);
  EXPECT_TRUE(distillation_uses_topk("forward_kl_topk"));
}

TEST(AlgoDistillation, ForwardKlTopk) {
  // Student q = 0.75, 0.25, 0 (log 0 -> -inf avoided: third logit very negative).
  const at::Tensor logits = at::stack({mat({{std::log(0.75), std::log(0.25), -50},
                                            {std::log(0.75), std::log(0.25), -50},
                                            {std::log(0.75), std::log(0.25), -50}})});
  // token 0: teacher top-1 id 1, p = 0.6: D = 0.6*ln(0.6/0.25); overlap 0.
  // token 1: id 0, p = 0.9: D = 0.9*ln(0.9/0.75); overlap 1.
  // token 2: id 0, p = 0.5: D = 0.5*ln(0.5/0.75) < 0 -> 0.
  const at::Tensor tid = at::tensor({1, 0, 0}, at::kLong).reshape({1, 3, 1});
  const at::Tensor tlp = vec({std::log(0.6), std::log(0.9), std::log(0.5)}).reshape({1, 3, 1});
  const at::Tensor mask = mat({{1, 1, 1}});
  const auto r = forward_kl_topk(logits, tid, tlp, mask);
  expect_near(r.divergence, {{0.6 * std::log(0.6 / 0.25), 0.9 * std::log(0.9 / 0.75), 0}}, 1e-9,
              "D");
  EXPECT_NEAR(r.metrics.at("distillation/overlap_ratio"), 2 / (3 + 1e-8), 1e-9);
  // Tokens 1 and 2 overlap: -p·ln(p/q) there (token 2's term unclamped), 0 at token 0.
  EXPECT_NEAR(r.metrics.at("distillation/overlap_token_advantage"),
              (-0.9 * std::log(0.9 / 0.75) - 0.5 * std::log(0.5 / 0.75)) / (3 + 1e-8), 1e-9);
  EXPECT_NEAR(r.metrics.at("distillation/teacher_mass_max"), 0.9, 1e-12);
  EXPECT_NEAR(r.metrics.at("distillation/student_mass_min"), 0.25, 1e-9);
  // log_prob_min_clamp -1: log q = ln 0.25 = -1.386 -> -1.
  const auto c = forward_kl_topk(logits, tid, tlp, mask, 1.0, -1.0);
  EXPECT_NEAR(item(c.divergence.select(1, 0)), 0.6 * (std::log(0.6) + 1), 1e-9);
}

// topk may be the whole vocabulary: the overlap of two top-k lists is found by a sorted search, not
// a [tokens, k, k] comparison (20,000² per token would need gigabytes). Teacher and student top-k
// both cover every id here, in different orders: overlap 1; half of them: 0.5.
TEST(AlgoDistillation, OverlapOfVocabularySizedTopk) {
  const int64_t V = 20000;
  const at::Tensor ids = at::randperm(V, at::kLong).view({1, 1, V}).repeat({1, 3, 1});
  const at::Tensor student = at::randperm(V, at::kLong).view({1, 1, V}).repeat({1, 3, 1});
  const at::Tensor log_q = at::full({1, 3, V}, -std::log(static_cast<double>(V)), at::kDouble);
  const auto all = forward_kl_topk_at_ids(log_q, student, ids, log_q, at::ones({1, 3}));
  // (masked_mean divides by the mask sum + 1e-8, as verl's does)
  EXPECT_NEAR(all.metrics.at("distillation/overlap_ratio"), 1.0, 1e-8);
  const at::Tensor halves = at::cat({at::arange(V / 2, at::kLong), at::arange(V / 2, at::kLong)});
  const auto half = forward_kl_topk_at_ids(log_q, halves.view({1, 1, V}).repeat({1, 3, 1}), ids,
                                           log_q, at::ones({1, 3}));
  EXPECT_NEAR(half.metrics.at("distillation/overlap_ratio"), 0.5, 1e-8);
}

}  // namespace
}  // namespace verlpp::algo
