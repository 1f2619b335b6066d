#include "verlpp/engine/actor.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "actor_fixture.h"
#include "verlpp/engine/micro_batches.h"
#include "verlpp/model/layers/moe.h"

namespace verlpp::engine {
namespace {

using testing::kPrompt;
using testing::kResponse;

AdamWConfig adamw(double lr) {
  AdamWConfig c;
  c.schedule.lr = lr;
  c.clip_grad = 100.0;
  return c;
}

ActorSettings settings(std::int64_t mini_rows, MicroBatching micro, const std::string& agg) {
  ActorSettings s;
  s.forward.temperature = 0.7;
  s.forward.chunk_tokens = 5;
  s.mini_batch_rows = mini_rows;
  s.update_micro = micro;
  s.loss.policy.loss_agg_mode = agg;
  return s;
}

data::Batch with_old_log_probs(const Actor& actor, data::Batch batch) {
  batch.set_tensor("old_log_probs", actor.compute_log_prob(batch, false).log_probs);
  return batch;
}

// The micro-batches' rows in the order they are computed.
std::vector<std::int64_t> computed_order(const at::Tensor& mask, const MicroBatching& how) {
  std::vector<std::int64_t> order;
  for (const auto& piece : micro_batch_indices(mask, how)) {
    order.insert(order.end(), piece.begin(), piece.end());
  }
  return order;
}

// Reference: each row alone through the padded forward without padding, full softmax; with rows
// per micro-batch and with a token budget whose Karmarkar-Karp micro-batches take the rows out of
// order (the result comes back in the batch's order).
TEST(ActorLogProb, MatchesEachSequenceAloneWithFullSoftmax) {
  const model::CausalLM model = testing::tiny_model();
  const data::Batch batch = testing::tiny_batch();
  c10::AutoGradMode no_grad(false);
  const MicroBatching budget{{}, 12};
  const std::vector<std::int64_t> order = computed_order(batch.tensor("attention_mask"), budget);
  ASSERT_FALSE(std::is_sorted(order.begin(), order.end())) << "the budget keeps the row order";
  for (const auto& [packed, micro] :
       {std::pair{true, MicroBatching{2, {}}}, std::pair{false, MicroBatching{2, {}}},
        std::pair{true, budget}, std::pair{false, budget}}) {
    ForwardSettings forward;
    forward.remove_padding = packed;
    forward.temperature = 0.7;
    forward.chunk_tokens = 3;
    const LogProbOutput out = compute_log_prob(model, batch, micro, forward, true);
    ASSERT_EQ(out.log_probs.sizes(), (at::IntArrayRef{6, kResponse}));
    const at::Tensor mask = batch.tensor("attention_mask");
    for (std::int64_t i = 0; i < batch.size(); ++i) {
      const at::Tensor seq = batch.tensor("input_ids")[i].masked_select(mask[i].ne(0));
      const std::int64_t prompt_len = mask[i].slice(0, 0, kPrompt).sum().item<std::int64_t>();
      const at::Tensor hidden =
          model.forward_padded(seq.unsqueeze(0), at::ones_like(seq).unsqueeze(0));
      const at::Tensor logp = at::log_softmax(model.logits(hidden)[0] / 0.7, -1);
      for (std::int64_t t = 0; t < kResponse; ++t) {
        const bool valid = mask[i][kPrompt + t].item<std::int64_t>() != 0;
        double want = 0, want_h = 0;
        if (valid) {
          const at::Tensor row = logp[prompt_len + t - 1];
          want = row[seq[prompt_len + t]].item<double>();
          want_h = -(row.exp() * row).sum().item<double>();
        }
        EXPECT_NEAR(out.log_probs[i][t].item<double>(), want, 1e-5) << i << "," << t;
        EXPECT_NEAR(out.entropy[i][t].item<double>(), want_h, 1e-5) << i << "," << t;
      }
    }
  }
}

// Token budget, worked by hand for rows of 5, 3, 4 and 2 tokens (14): verl's count min(4, ceil(14 /
// budget)) and the Karmarkar-Karp partition (largest differencing: the two largest-spread states
// merge, the larger sums taking the smaller ones). Budget 8: 2 micro-batches {0, 3} {1, 2} of 7
// tokens each (rows in order: 8 and 6). Budget 5: 3 micro-batches {0} {2} {1, 3} of 5, 4, 5
// tokens (rows in order need 4). Budget 4: 4, one row each.
TEST(MicroBatches, RowsAndTokenBudgetByHand) {
  at::Tensor mask = at::zeros({4, 6}, at::kLong);
  const std::vector<std::int64_t> lengths{5, 3, 4, 2};
  for (std::size_t i = 0; i < 4; ++i) mask[i].slice(0, 0, lengths[i]).fill_(1);
  using Pieces = std::vector<std::vector<std::int64_t>>;
  const auto sorted = [](Pieces p) {
    std::sort(p.begin(), p.end());
    return p;
  };
  EXPECT_EQ(sorted(micro_batch_indices(mask, {{}, 8})), (Pieces{{0, 3}, {1, 2}}));
  EXPECT_EQ(sorted(micro_batch_indices(mask, {{}, 5})), (Pieces{{0}, {1, 3}, {2}}));
  EXPECT_EQ(sorted(micro_batch_indices(mask, {{}, 4})), (Pieces{{0}, {1}, {2}, {3}}));
  const std::int64_t largest =
      std::numeric_limits<std::int64_t>::max();  // no overflow in the count
  EXPECT_EQ(micro_batch_indices(mask, {{}, largest}), (Pieces{{0, 1, 2, 3}}));
  EXPECT_EQ(micro_batch_indices(mask, {3, {}}), (Pieces{{0, 1, 2}, {3}}));
  EXPECT_EQ(micro_batch_indices(mask, {}), (Pieces{{0, 1, 2, 3}}));
  const at::Tensor rows = at::arange(4, at::kLong) * 10;
  EXPECT_TRUE(at::equal(in_batch_order({rows.index_select(0, at::tensor({1, 3})),
                                        rows.index_select(0, at::tensor({0, 2}))},
                                       {{1, 3}, {0, 2}}),
                        rows));
}

// Gradient accumulation over micro-batches with verl's global-batch normalisation gives the same
// update as the whole mini-batch at once, for each aggregation mode and both batchings.
TEST(ActorUpdate, MicroBatchAccumulationEqualsOneBatch) {
  for (const std::string agg : {"token-mean", "seq-mean-token-mean", "seq-mean-token-sum"}) {
    for (const MicroBatching micro : {MicroBatching{1, {}}, MicroBatching{{}, 9}}) {
      Actor whole(testing::tiny_model(), settings(3, {}, agg), adamw(1e-2), 10);
      Actor pieces(testing::tiny_model(), settings(3, micro, agg), adamw(1e-2), 10);
      const data::Batch batch = with_old_log_probs(whole, testing::tiny_batch());
      const algo::Metrics a = whole.update_policy(batch);
      const algo::Metrics b = pieces.update_policy(batch);
      EXPECT_NEAR(a.at("actor/pg_loss"), b.at("actor/pg_loss"), 1e-6) << agg;
      EXPECT_NEAR(a.at("actor/grad_norm"), b.at("actor/grad_norm"), 1e-5) << agg;
      EXPECT_LT(testing::max_param_diff(whole.model(), pieces.model()), 1e-6) << agg;
      EXPECT_GT(testing::max_param_diff(whole.model(), testing::tiny_model()), 1e-3) << "no update";
    }
  }
}

// distillation/loss_min and loss_max are the extremes of D over every response token of the step,
// whatever the micro-batching (verl's AggregationType MIN / MAX; bt15 saw loss_max 6.52 / 5.94 /
// 3.00 for 1 / 2 / 4 micro-batches, averages of each micro-batch's extreme). k1 at the first
// update: D = log pi - log q = old_log_probs - teacher_log_prob = -noise, known here.
TEST(ActorUpdate, DistillationExtremesSpanTheWholeStep) {
  for (const MicroBatching micro : {MicroBatching{6, {}}, MicroBatching{1, {}}}) {
    ActorSettings s = settings(6, micro, "token-mean");
    s.distillation = algo::DistillationLossConfig{};
    s.distillation->loss_mode = "k1";
    s.distillation->use_policy_gradient = true;
    s.distillation->use_task_rewards = false;
    Actor actor(testing::tiny_model(), s, adamw(1e-2), 10);
    data::Batch batch = with_old_log_probs(actor, testing::tiny_batch());
    const at::Tensor noise = at::randn(batch.tensor("old_log_probs").sizes(),
                                       at::make_generator<at::CPUGeneratorImpl>(5));
    batch.set_tensor("teacher_log_prob", batch.tensor("old_log_probs") + noise);
    const at::Tensor d = (-noise).masked_select(batch.tensor("response_mask").ne(0));
    const algo::Metrics m = actor.update_policy(batch);
    EXPECT_NEAR(m.at("actor/distillation/loss_min"), d.min().item<double>(), 1e-5);
    EXPECT_NEAR(m.at("actor/distillation/loss_max"), d.max().item<double>(), 1e-5);
  }
}

TEST(ActorUpdate, FirstUpdateHasZeroPpoKlAndClipFraction) {
  ActorSettings s = settings(6, MicroBatching{2, {}}, "token-mean");
  s.loss.use_kl_loss = true;
  s.loss.kl_loss_type = "low_var_kl";
  Actor actor(testing::tiny_model(), s, adamw(1e-2), 10);
  data::Batch batch = with_old_log_probs(actor, testing::tiny_batch());
  batch.set_tensor("ref_log_prob", batch.tensor("old_log_probs"));
  const algo::Metrics m = actor.update_policy(batch);
  EXPECT_NEAR(m.at("actor/ppo_kl"), 0.0, 1e-6);
  EXPECT_EQ(m.at("actor/pg_clipfrac"), 0.0);
  EXPECT_NEAR(m.at("actor/kl_loss"), 0.0, 1e-6);
  EXPECT_EQ(m.at("actor/lr"), 1e-2);
  // pg_loss of the first update = -token-mean(A): ratio 1 everywhere.
  const at::Tensor mask = batch.tensor("response_mask").to(at::kFloat);
  const double want =
      -(batch.tensor("advantages") * mask).sum().item<double>() / mask.sum().item<double>();
  EXPECT_NEAR(m.at("actor/pg_loss"), want, 1e-5);
}

// The load-balancing loss over every real token of the batch, with its gradient norm, computed
// here from the model directly (packed forward of each row's real tokens).
std::pair<double, double> aux_loss_and_grad_norm(model::CausalLM model, const data::Batch& b) {
  model.set_requires_grad(true);
  const at::Tensor mask = b.tensor("attention_mask").ne(0);
  const at::Tensor lengths = mask.sum(1);
  const at::Tensor cu = at::cat({at::zeros({1}, at::kLong), lengths.cumsum(0)});
  std::vector<at::Tensor> router;
  model.forward_packed(b.tensor("input_ids").masked_select(mask),
                       b.tensor("position_ids").masked_select(mask), cu, &router);
  const at::Tensor aux = model::load_balancing_loss(router, 4, 2);
  aux.backward();
  double sq = 0;
  for (const auto& [name, p] : model.named_parameters()) {
    if (p.grad().defined()) sq += p.grad().pow(2).sum().item<double>();
  }
  return {aux.item<double>(), std::sqrt(sq)};
}

TEST(ActorUpdate, MoeAuxLossIsLoggedAndJoinsTheLossOnlyWhenAsked) {
  data::Batch batch = testing::tiny_batch();
  batch.set_tensor("advantages", at::zeros_like(batch.tensor("advantages")));  // no pg gradient
  const auto [aux, aux_grad_norm] = aux_loss_and_grad_norm(testing::tiny_moe_model(), batch);
  ASSERT_GT(aux_grad_norm, 1e-4);

  Actor logged(testing::tiny_moe_model(), settings(6, {}, "token-mean"), adamw(1e-2), 10);
  batch = with_old_log_probs(logged, batch);
  const algo::Metrics a = logged.update_policy(batch);
  EXPECT_NEAR(a.at("actor/moe_aux_loss"), aux, 1e-6);
  EXPECT_NEAR(a.at("actor/grad_norm"), 0.0, 1e-7);  // FSDP-style: logged, not added

  ActorSettings s = settings(6, {}, "token-mean");
  s.add_moe_aux_loss = true;  // Megatron with moe_router_load_balancing_type=aux_loss
  s.moe_aux_loss_coeff = 5.0;
  Actor added(testing::tiny_moe_model(), s, adamw(1e-2), 10);
  const algo::Metrics b = added.update_policy(batch);
  EXPECT_NEAR(b.at("actor/moe_aux_loss"), aux, 1e-6);
  EXPECT_NEAR(b.at("actor/grad_norm"), 5.0 * aux_grad_norm, 1e-5 * aux_grad_norm);

  // Without a coefficient the model's router_aux_loss_coef (0.001) applies.
  s.moe_aux_loss_coeff.reset();
  Actor default_coeff(testing::tiny_moe_model(), s, adamw(1e-2), 10);
  EXPECT_NEAR(default_coeff.update_policy(batch).at("actor/grad_norm"), 0.001 * aux_grad_norm,
              1e-5 * aux_grad_norm);
}

TEST(ActorUpdate, DenseModelsLogNoMoeAuxLoss) {
  Actor actor(testing::tiny_model(), settings(6, {}, "token-mean"), adamw(1e-2), 10);
  const algo::Metrics m = actor.update_policy(with_old_log_probs(actor, testing::tiny_batch()));
  EXPECT_EQ(m.count("actor/moe_aux_loss"), 0u);
}

}  // namespace
}  // namespace verlpp::engine
