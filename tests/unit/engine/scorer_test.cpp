// A sharded Scorer (the reference policy of several ranks) against a whole one: two forked Gloo
// ranks each score their half of a batch with the weights sharded between them; the log-probs and
// top-k must be those of one process holding the whole model on the whole batch (the whole
// Scorer's pass is the actor's old_log_prob pass, itself checked against transformers in the model
// tests), and between passes each rank keeps only its shard.
#include "verlpp/engine/scorer.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "../dist/two_ranks.h"
#include "actor_fixture.h"
#include "verlpp/engine/fsdp/shard_rows.h"

namespace verlpp::engine {
namespace {

using dist::Communicator;

struct Case {
  bool moe = false;
  fsdp::FsdpSettings sharding;
  MicroBatching micro;
};

ScorerSettings settings(const MicroBatching& micro) {
  ScorerSettings s;
  s.forward.temperature = 0.7;
  s.forward.chunk_tokens = 5;
  s.micro = micro;
  return s;
}

model::CausalLM model_of(const Case& c) {
  return c.moe ? testing::tiny_moe_model() : testing::tiny_model();
}

// This rank's half of the batch: rows [3r, 3r + 3).
data::Batch half(const data::Batch& batch, int rank) {
  return batch.select({3 * rank, 3 * rank + 1, 3 * rank + 2});
}

// Bytes of the weights a rank holds between passes (storage of the model's own tensors).
std::int64_t held_bytes(const model::CausalLM& model) {
  std::int64_t bytes = 0;
  for (const auto& [name, p] : model.named_parameters()) {
    bytes += static_cast<std::int64_t>(p.storage().nbytes());
  }
  return bytes;
}

void expect_equal_to_whole(const Case& c) {
  dist::test_ranks::run_both([&](const Communicator& comm) {
    const data::Batch batch = testing::tiny_batch();
    const Scorer whole("ref", model_of(c), settings(c.micro));
    const at::Tensor expected = whole.log_probs(batch);
    const ResponseTopk expected_top = whole.topk(batch, 3);

    ScorerSettings s = settings(c.micro);
    s.sharding = c.sharding;
    const Scorer sharded("ref", model_of(c), s, comm);
    const data::Batch mine = half(batch, comm.rank());
    const at::Tensor rows = at::arange(3 * comm.rank(), 3 * comm.rank() + 3, at::kLong);
    // A rank's 3 rows against the whole model's 6: OpenBLAS may block the products differently
    // (seen on an AVX-512 EPYC: 1.19e-6, 5 fp32 ulps of the top log-probs near -3.6, after two
    // layers); a sharding mistake moves them by far more.
    const double tolerance = 5e-6;
    for (int pass = 0; pass < 2; ++pass) {  // the second pass gathers the freed weights again
      const at::Tensor got = sharded.log_probs(mine);
      EXPECT_LT((got - expected.index_select(0, rows)).abs().max().item<double>(), tolerance);
      const ResponseTopk top = sharded.topk(mine, 3);
      EXPECT_TRUE(top.ids.equal(expected_top.ids.index_select(0, rows)));
      EXPECT_LT(
          (top.log_probs - expected_top.log_probs.index_select(0, rows)).abs().max().item<double>(),
          tolerance);
      EXPECT_EQ(held_bytes(sharded.model()), 0) << "weights left gathered after the pass";
    }
    // Validation's reverse KL: every rank scores the whole batch against another model.
    const model::CausalLM student = testing::tiny_model(8);
    const at::Tensor kl = whole.reverse_kl(batch, student, 0.7);
    EXPECT_LT((sharded.reverse_kl(batch, student, 0.7) - kl).abs().max().item<double>(), 1e-6);
    EXPECT_EQ(held_bytes(sharded.model()), 0) << "weights left gathered after the reverse KL";
    EXPECT_GT(kl.max().item<double>(), 1e-3) << "the two models do not differ";
  });
}

// KL(p || p) = 0: the model against itself at its own temperature, 0 beyond each response.
TEST(Scorer, ReverseKlOfAModelAgainstItselfIsZero) {
  const data::Batch batch = testing::tiny_batch();
  ScorerSettings s = settings({});
  s.forward.temperature = 1.0;
  const Scorer scorer("teacher", testing::tiny_model(), s);
  const at::Tensor kl = scorer.reverse_kl(batch, testing::tiny_model(), 1.0);
  EXPECT_EQ(kl.sizes(), batch.tensor("responses").sizes());
  EXPECT_LT(kl.abs().max().item<double>(), 1e-6);
  const Scorer hotter("teacher", testing::tiny_model(), settings({}));  // at 0.7
  const at::Tensor apart = hotter.reverse_kl(batch, testing::tiny_model(), 1.0);
  const at::Tensor outside = batch.tensor("response_mask") == 0;
  EXPECT_GT(apart.max().item<double>(), 1e-3);
  EXPECT_EQ(apart.masked_select(outside).abs().max().item<double>(), 0.0);
}

class ShardedScorer : public dist::test_ranks::GlooTest {};

TEST_F(ShardedScorer, EqualsTheWholeModel) { expect_equal_to_whole({}); }

TEST_F(ShardedScorer, EqualsTheWholeModelWithOffloadAndTokenBudget) {
  Case c;
  c.sharding.param_offload = true;
  c.micro = MicroBatching{{}, 9};  // budgets differ per rank: the counts are equalised
  expect_equal_to_whole(c);
}

TEST_F(ShardedScorer, EqualsTheWholeModelForMoe) {
  Case c;
  c.moe = true;
  c.micro = MicroBatching{1, {}};
  expect_equal_to_whole(c);
}

// Each rank keeps its padded half of every weight (fsdp::shard_rows), a whole Scorer all of it.
TEST_F(ShardedScorer, KeepsHalfTheWeights) {
  dist::test_ranks::run_both([](const Communicator& comm) {
    const Scorer whole("ref", testing::tiny_model(), settings({}));
    ScorerSettings s = settings({});
    s.sharding = fsdp::FsdpSettings{};
    const Scorer sharded("ref", testing::tiny_model(), s, comm);
    std::int64_t full = 0, mine = 0;
    for (const auto& [name, p] : whole.model().named_parameters()) {
      full += p.numel() * 4;
      mine += fsdp::shard_rows(p.size(0), 2, comm.rank()).capacity * (p.numel() / p.size(0)) * 4;
    }
    EXPECT_EQ(whole.parameter_bytes(), full);
    EXPECT_EQ(sharded.parameter_bytes(), mine);
    EXPECT_LE(2 * mine, full * 101 / 100);
  });
}

}  // namespace
}  // namespace verlpp::engine
