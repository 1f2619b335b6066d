// Sharded (FSDP-style) training against one unsharded process: forked Gloo ranks (two, or four
// for hybrid sharding) each update a sharded actor on their part of a batch; the result must equal
// one actor updating on the whole batch (the reference is the unsharded, single-process code path,
// itself checked against hand-worked and per-row references in actor_test and optimizer_test).
#include "verlpp/engine/fsdp/sharded_model.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "../dist/two_ranks.h"
#include "actor_fixture.h"
#include "verlpp/core/error.h"
#include "verlpp/engine/actor.h"
#include "verlpp/engine/fsdp/shard_rows.h"

namespace verlpp::engine {
namespace {

namespace fs = std::filesystem;
using dist::Communicator;

// Rows 5 over 2 ranks: capacity 3; rank 0 rows [0, 3), rank 1 rows [3, 5) and one padding row.
// Rows 1 over 2 ranks: rank 1 holds only padding.
TEST(ShardRows, ByHand) {
  const fsdp::ShardRows a = fsdp::shard_rows(5, 2, 0), b = fsdp::shard_rows(5, 2, 1);
  EXPECT_EQ(a.begin, 0);
  EXPECT_EQ(a.valid, 3);
  EXPECT_EQ(a.capacity, 3);
  EXPECT_EQ(b.begin, 3);
  EXPECT_EQ(b.valid, 2);
  const fsdp::ShardRows c = fsdp::shard_rows(1, 2, 1);
  EXPECT_EQ(c.valid, 0);
  EXPECT_EQ(c.capacity, 1);
  EXPECT_EQ(fsdp::shard_rows(7, 1, 0).valid, 7);
  EXPECT_THROW(fsdp::shard_rows(4, 2, 2), Error);
}

// lr 1e-3: AdamW moves an element whose gradient is nearly zero by about lr whatever its size, so
// the fp32 rounding of a different summation order (one rank vs a reduce-scatter) shows in the
// weights as about lr × 1e-3 (seen: 2.6e-6 at lr 1e-2); at 1e-3 the weights agree within 1e-6.
AdamWConfig adamw() {
  AdamWConfig c;
  c.schedule.lr = 1e-3;
  c.clip_grad = 100.0;
  return c;
}

// One mini-batch of the whole batch (6 rows): a rank's mini-batches are splits of its own half,
// so only then is the 2-rank mini-batch the 1-rank one.
ActorSettings settings(MicroBatching micro, std::int64_t ppo_epochs = 1) {
  ActorSettings s;
  s.ppo_epochs = ppo_epochs;
  s.forward.temperature = 0.7;
  s.forward.chunk_tokens = 5;
  s.mini_batch_rows = 6;
  s.update_micro = micro;
  s.log_prob_micro = micro;
  return s;
}

struct Case {
  bool moe = false;
  bool reshard_after_forward = true;
  bool checkpointing = false;
  MicroBatching micro;
  std::int64_t ppo_epochs = 1;
};

model::CausalLM model_of(const Case& c) {
  model::CausalLM m = c.moe ? testing::tiny_moe_model() : testing::tiny_model();
  m.set_gradient_checkpointing(c.checkpointing);
  return m;
}

// This rank's half of the batch: rows [3r, 3r + 3).
data::Batch half(const data::Batch& batch, int rank) {
  return batch.select({3 * rank, 3 * rank + 1, 3 * rank + 2});
}

// Two updates of `whole` on `batch` and of `sharded` on this rank's rows `mine` give the same
// pg_loss and grad_norm, then the same weights, which moved away from `initial`.
void expect_same_updates(Actor& whole, const data::Batch& batch, Actor& sharded,
                         const data::Batch& mine, const model::CausalLM& initial) {
  for (int step = 0; step < 2; ++step) {
    const algo::Metrics a = whole.update_policy(batch);
    const algo::Metrics b = sharded.update_policy(mine);
    EXPECT_NEAR(a.at("actor/pg_loss"), b.at("actor/pg_loss"), 1e-6);
    EXPECT_NEAR(a.at("actor/grad_norm"), b.at("actor/grad_norm"), 1e-6 * a.at("actor/grad_norm"));
  }
  sharded.gather_weights();
  EXPECT_LT(testing::max_param_diff(whole.model(), sharded.model()), 1e-6);
  EXPECT_GT(testing::max_param_diff(whole.model(), initial), 1e-4) << "no update";
  sharded.release_weights();
}

void expect_equal_to_one_rank(const Case& c) {
  dist::test_ranks::run_both([&](const Communicator& comm) {
    Actor whole(model_of(c), settings(c.micro, c.ppo_epochs), adamw(), 10);
    data::Batch batch = testing::tiny_batch();
    const LogProbOutput old = whole.compute_log_prob(batch, false);
    batch.set_tensor("old_log_probs", old.log_probs);

    ActorSettings s = settings(c.micro, c.ppo_epochs);
    s.dp = comm;
    s.sharding = fsdp::FsdpSettings{c.reshard_after_forward, false};
    Actor sharded(model_of(c), s, adamw(), 10);
    ASSERT_NE(sharded.sharded(), nullptr);
    const data::Batch mine = half(batch, comm.rank());
    const at::Tensor local_old = sharded.compute_log_prob(mine, false).log_probs;
    EXPECT_LT(
        (local_old - half(batch, comm.rank()).tensor("old_log_probs")).abs().max().item<double>(),
        1e-6);

    expect_same_updates(whole, batch, sharded, mine, model_of(c));
  });
}

class ShardedActor : public dist::test_ranks::GlooTest {};

TEST_F(ShardedActor, EqualsOneRankReshardingAfterForward) { expect_equal_to_one_rank({}); }

TEST_F(ShardedActor, EqualsOneRankKeepingWeightsUntilBackward) {
  Case c;
  c.reshard_after_forward = false;
  c.ppo_epochs = 2;  // two optimizer steps per update
  expect_equal_to_one_rank(c);
}

TEST_F(ShardedActor, EqualsOneRankWithCheckpointingAndTokenBudget) {
  Case c;
  c.checkpointing = true;
  c.micro = MicroBatching{{}, 9};  // budgets differ per rank: the counts are equalised
  expect_equal_to_one_rank(c);
}

TEST_F(ShardedActor, EqualsOneRankForMoe) {
  Case c;
  c.moe = true;
  c.micro = MicroBatching{1, {}};
  expect_equal_to_one_rank(c);
}

// Hybrid sharding over 4 ranks (fsdp_size 2: two copies, each sharded over 2 ranks, one row of the
// batch per rank) equals one rank on the whole batch; each rank's shard group and replica group
// are verl's (ddp, fsdp) mesh, and only the first copy's ranks write optimizer shards.
TEST_F(ShardedActor, HybridShardingEqualsOneRank) {
  dist::test_ranks::run_ranks(4, [](const Communicator& comm) {
    data::Batch batch = testing::tiny_batch().select({0, 1, 2, 3});
    ActorSettings s = settings({});
    s.mini_batch_rows = 4;
    Actor whole(testing::tiny_model(), s, adamw(), 10);
    batch.set_tensor("old_log_probs", whole.compute_log_prob(batch, false).log_probs);
    s.dp = comm;
    s.sharding = fsdp::FsdpSettings{true, false, 2};
    Actor hybrid(testing::tiny_model(), s, adamw(), 10);
    EXPECT_EQ(hybrid.sharded()->group().size(), 2);
    EXPECT_EQ(hybrid.sharded()->group().rank(), comm.rank() % 2);
    EXPECT_EQ(hybrid.sharded()->replicas().size(), 2);
    EXPECT_EQ(hybrid.sharded()->replicas().rank(), comm.rank() / 2);
    EXPECT_EQ(hybrid.optimizer().writes_shard(), comm.rank() < 2);
    const data::Batch mine = batch.select({comm.rank()});
    expect_same_updates(whole, batch, hybrid, mine, testing::tiny_model());
  });
}

// Every rank holds about half of the parameters, gradients and optimizer state of one rank.
TEST_F(ShardedActor, HoldsHalfTheTrainingState) {
  dist::test_ranks::run_both([](const Communicator& comm) {
    Actor whole(testing::tiny_model(), settings({}), adamw(), 10);
    ActorSettings s = settings({});
    s.dp = comm;
    s.sharding = fsdp::FsdpSettings{};
    Actor sharded(testing::tiny_model(), s, adamw(), 10);
    std::int64_t full = 0, padded = 0;
    for (const auto& [name, p] : whole.model().named_parameters()) {
      full += p.numel() * 4;
      padded += fsdp::shard_rows(p.size(0), 2, 0).capacity * (p.numel() / p.size(0)) * 4;
    }
    const fsdp::TrainingStateBytes bytes = sharded.sharded()->state_bytes();
    EXPECT_EQ(bytes.parameters, padded);
    EXPECT_EQ(bytes.gradients, padded);
    EXPECT_EQ(sharded.optimizer().state_bytes(), 3 * padded);
    EXPECT_EQ(whole.optimizer().state_bytes(), 3 * full);
    EXPECT_LE(2 * padded, full * 101 / 100);  // padding: under 1 % here
    EXPECT_GE(2 * padded, full);
  });
}

// The optimizer state saved by two ranks loads into one rank, and one rank's into two ranks
// (resharding on load): the next update is the same as without the round trip.
TEST_F(ShardedActor, OptimizerStateReshardsAcrossWorldSizes) {
  const fs::path dir =
      fs::temp_directory_path() / ("verlpp_sharded_optim_" + std::to_string(getpid()));
  std::error_code error;  // the error_code overload (see trainer/checkpoint_dir.cpp rotate)
  fs::remove_all(dir, error);
  fs::create_directories(dir / "two");
  fs::create_directories(dir / "one");
  dist::test_ranks::run_both([&](const Communicator& comm) {
    data::Batch batch = testing::tiny_batch();
    Actor whole(testing::tiny_model(), settings({}), adamw(), 10);
    batch.set_tensor("old_log_probs", whole.compute_log_prob(batch, false).log_probs);
    ActorSettings s = settings({});
    s.dp = comm;
    s.sharding = fsdp::FsdpSettings{};
    Actor sharded(testing::tiny_model(), s, adamw(), 10);
    whole.update_policy(batch);
    sharded.update_policy(half(batch, comm.rank()));
    sharded.optimizer().save((dir / "two").string());
    if (comm.is_main()) whole.optimizer().save((dir / "one").string());
    comm.barrier();
    EXPECT_TRUE(fs::exists(dir / "two" / "optim_world_size_2_rank_1.safetensors"));

    Actor from_two(testing::tiny_model(), settings({}), adamw(), 10);
    from_two.optimizer().load((dir / "two").string());
    Actor from_one(testing::tiny_model(), s, adamw(), 10);
    from_one.optimizer().load((dir / "one").string());
    const double before = whole.optimizer().lr();
    EXPECT_EQ(from_two.optimizer().lr(), before);
    const algo::Metrics a = whole.update_policy(batch);
    const algo::Metrics b = from_two.update_policy(batch);
    const algo::Metrics c = from_one.update_policy(half(batch, comm.rank()));
    EXPECT_NEAR(a.at("actor/grad_norm"), b.at("actor/grad_norm"), 1e-6);
    EXPECT_NEAR(a.at("actor/grad_norm"), c.at("actor/grad_norm"), 1e-6);
    EXPECT_LT(testing::max_param_diff(whole.model(), from_two.model()), 1e-6);
    from_one.gather_weights();
    EXPECT_LT(testing::max_param_diff(whole.model(), from_one.model()), 1e-6);
    from_one.release_weights();
    comm.barrier();
  });
  fs::remove_all(dir, error);
}

// A checkpoint loaded with deferred weights (each rank reads only its rows) shards to exactly the
// shards of a whole load on every rank (3 ranks: uneven rows, and a rank with no expert rows;
// experts stored per expert, as save_pretrained writes them), its frozen lm_head is read whole,
// and an actor on it trains to the same weights.
TEST_F(ShardedActor, DeferredLoadingShardsAsAWholeLoad) {
  const fs::path dir =
      fs::temp_directory_path() / ("verlpp_deferred_load_" + std::to_string(getpid()));
  testing::tiny_moe_model().save_pretrained(dir.string(), at::kFloat);
  const auto load = [&](model::WeightLoading loading) {
    return model::CausalLM::from_pretrained(model::load_model_config(dir.string()), dir.string(),
                                            at::kFloat, at::Device(at::kCPU), false, loading);
  };
  dist::test_ranks::run_ranks(3, [&](const Communicator& comm) {
    model::CausalLM whole = load(model::WeightLoading::whole);
    model::CausalLM deferred = load(model::WeightLoading::deferred);
    const std::vector<std::string> frozen{"lm_head.weight"};
    const auto a = fsdp::ShardedModel::shard(whole, {}, frozen, comm, {});
    const auto b = fsdp::ShardedModel::shard(deferred, {}, frozen, comm, {});
    EXPECT_FALSE(deferred.weights_pending());
    const std::vector<at::Tensor> expected = a->shards(), got = b->shards();
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(at::equal(got[i], expected[i])) << "shard " << i << " on rank " << comm.rank();
    }
    a->gather_all();
    b->gather_all();
    EXPECT_EQ(testing::max_param_diff(whole, deferred), 0.0);
    a->reshard();
    b->reshard();

    ActorSettings s = settings({});
    s.dp = comm;
    s.sharding = fsdp::FsdpSettings{};
    Actor from_whole(load(model::WeightLoading::whole), s, adamw(), 10);
    Actor from_deferred(load(model::WeightLoading::deferred), s, adamw(), 10);
    data::Batch mine = testing::tiny_batch().select({2 * comm.rank(), 2 * comm.rank() + 1});
    mine.set_tensor("old_log_probs", from_whole.compute_log_prob(mine, false).log_probs);
    const algo::Metrics m = from_whole.update_policy(mine);
    EXPECT_EQ(from_deferred.update_policy(mine).at("actor/grad_norm"), m.at("actor/grad_norm"));
    from_whole.gather_weights();
    from_deferred.gather_weights();
    EXPECT_EQ(testing::max_param_diff(from_whole.model(), from_deferred.model()), 0.0);
    EXPECT_GT(testing::max_param_diff(from_whole.model(), load(model::WeightLoading::whole)), 1e-4)
        << "no update";
    from_whole.release_weights();
    from_deferred.release_weights();
  });
  std::error_code error;
  fs::remove_all(dir, error);
}

}  // namespace
}  // namespace verlpp::engine
