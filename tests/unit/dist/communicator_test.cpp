// Collectives between real ranks: the test forks the other ranks' processes, all join one Gloo
// group over a TCPStore on a free local port, and each checks values worked out by hand. (CUDA
// builds without Gloo headers skip; the NCCL path runs on the GPU machine.)
#include "verlpp/dist/communicator.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <functional>
#include <vector>

#include "two_ranks.h"
#include "verlpp/core/error.h"

namespace verlpp::dist {
namespace {

using test_ranks::run_both;
using test_ranks::run_two_ranks;

class TwoRanks : public test_ranks::GlooTest {};

// Rank r contributes (r + 1) · [1, 10]: sum [3, 30], avg [1.5, 15], max [2, 20], min [1, 10].
TEST_F(TwoRanks, AllReduceEveryOpAndDtype) {
  run_both([](const Communicator& c) {
    EXPECT_EQ(c.size(), 2);
    EXPECT_EQ(c.backend(), "gloo");
    const std::vector<std::pair<ReduceOp, std::vector<double>>> cases = {{ReduceOp::sum, {3, 30}},
                                                                         {ReduceOp::avg, {1.5, 15}},
                                                                         {ReduceOp::max, {2, 20}},
                                                                         {ReduceOp::min, {1, 10}}};
    for (const auto dtype : {at::kFloat, at::kBFloat16, at::kDouble}) {
      for (const auto& [op, expected] : cases) {
        at::Tensor t = at::tensor({1.0, 10.0}, at::kDouble).mul(c.rank() + 1).to(dtype);
        c.all_reduce(t, op);
        EXPECT_EQ(t.scalar_type(), dtype);
        EXPECT_EQ(t[0].item<double>(), expected[0]);
        EXPECT_EQ(t[1].item<double>(), expected[1]);
      }
    }
    at::Tensor counts = at::tensor({static_cast<int64_t>(c.rank() + 5)}, at::kLong);
    c.all_reduce(counts, ReduceOp::max);
    EXPECT_EQ(counts.item<int64_t>(), 6);
    EXPECT_EQ(c.all_reduce(std::vector<double>{0.5 * c.rank(), 2.0}, ReduceOp::sum),
              (std::vector<double>{0.5, 4.0}));
  });
}

// Rank r holds rows [[r, r], [10 + r, 10 + r]]; the gather is rank 0's rows then rank 1's. The
// reduce-scatter of rank r's [[1 + r], [2 + r], [3 + r], [4 + r]] sums to [[3], [5], [7], [9]]:
// rank 0 gets [3, 5], rank 1 [7, 9].
TEST_F(TwoRanks, AllGatherAndReduceScatter) {
  run_both([](const Communicator& c) {
    const double r = c.rank();
    const at::Tensor mine = at::tensor({r, r, 10 + r, 10 + r}, at::kDouble).view({2, 2});
    const at::Tensor all = c.all_gather(mine);
    EXPECT_TRUE(
        all.equal(at::tensor({0., 0., 10., 10., 1., 1., 11., 11.}, at::kDouble).view({4, 2})));
    const at::Tensor bf16 = c.all_gather(mine.to(at::kBFloat16));
    EXPECT_EQ(bf16.scalar_type(), at::kBFloat16);
    EXPECT_TRUE(bf16.to(at::kDouble).equal(all));
    const at::Tensor parts = at::tensor({1 + r, 2 + r, 3 + r, 4 + r}, at::kDouble).view({4, 1});
    const at::Tensor share = c.reduce_scatter(parts, ReduceOp::sum);
    const at::Tensor expected =
        c.rank() == 0 ? at::tensor({3., 5.}, at::kDouble) : at::tensor({7., 9.}, at::kDouble);
    EXPECT_TRUE(share.view({-1}).equal(expected));
    EXPECT_THROW(c.reduce_scatter(at::zeros({3}), ReduceOp::sum), Error);
  });
}

TEST_F(TwoRanks, BroadcastFromRankOne) {
  run_both([](const Communicator& c) {
    at::Tensor t = at::full({3}, 7.0 + c.rank(), at::kFloat);
    c.broadcast(t, 1);
    EXPECT_TRUE(t.equal(at::full({3}, 8.0, at::kFloat)));
    c.barrier();
  });
}

// A rank that leaves makes the other's next collective fail with an error naming the operation
// and the rank that saw it, instead of a hang or SIGPIPE's silent exit (1 run in 8 under load died
// by SIGPIPE on 2026-12-05, when the write came after the peer's sockets closed).
TEST_F(TwoRanks, APeerThatExitsIsAnErrorNotAHang) {
  run_two_ranks(
      [](const Communicator& c) {
        struct sigaction pipe {};
        ASSERT_EQ(sigaction(SIGPIPE, nullptr, &pipe), 0);
        EXPECT_EQ(pipe.sa_handler, SIG_IGN) << "SIGPIPE would end this rank without an error";
        at::Tensor t = at::ones({4});
        try {
          c.all_reduce(t, ReduceOp::sum);
          ADD_FAILURE() << "the all_reduce with a departed rank succeeded";
        } catch (const Error& e) {
          const std::string what = e.what();
          EXPECT_NE(what.find("rank 0: all_reduce over 2 ranks (gloo) failed"), std::string::npos)
              << what;
        }
      },
      [](const Communicator&) { _exit(0); });
}

// Four ranks as verl's (ddp 2, fsdp 2) mesh: shard groups {0, 1} and {2, 3}, replica groups
// {0, 2} and {1, 3}. Rank r contributes r + 1: shard sums 3 and 7, replica sums 4 and 6.
TEST_F(TwoRanks, SplitIntoTheRowsAndColumnsOfAMesh) {
  test_ranks::run_ranks(4, [](const Communicator& world) {
    const int r = world.rank();
    const Communicator shard = world.split({{0, 1}, {2, 3}});
    const Communicator replica = world.split({{0, 2}, {1, 3}});
    EXPECT_EQ(shard.size(), 2);
    EXPECT_EQ(shard.rank(), r % 2);
    EXPECT_EQ(replica.size(), 2);
    EXPECT_EQ(replica.rank(), r / 2);
    EXPECT_EQ(shard.all_reduce(r + 1.0, ReduceOp::sum), r < 2 ? 3.0 : 7.0);
    EXPECT_EQ(replica.all_reduce(r + 1.0, ReduceOp::sum), r % 2 == 0 ? 4.0 : 6.0);
    const at::Tensor gathered = shard.all_gather(at::full({1}, r + 1.0f));
    const float first = r < 2 ? 1.0f : 3.0f;
    EXPECT_TRUE(gathered.equal(at::tensor({first, first + 1})));
    EXPECT_EQ(world.all_reduce(r + 1.0, ReduceOp::sum), 10.0);  // the world still works
    const Communicator alone = world.split({{0}, {1}, {2}, {3}});
    EXPECT_EQ(alone.size(), 1);
    EXPECT_EQ(alone.backend(), "none");
    // The same partition again: the subgroup made before, without the other ranks (only rank 0
    // asks; a new group would wait for rank 1 to join it until the timeout, and fail).
    if (r == 0) {
      const Communicator again = world.split({{0, 1}, {2, 3}});
      EXPECT_EQ(again.size(), 2);
      EXPECT_EQ(again.rank(), 0);
    }
    EXPECT_EQ(shard.all_reduce(r + 1.0, ReduceOp::sum), r < 2 ? 3.0 : 7.0);
  });
}

TEST_F(TwoRanks, SplitRefusesWhatIsNotAPartition) {
  run_both([](const Communicator& world) {
    for (const auto& groups :
         std::vector<std::vector<std::vector<int>>>{{{0}}, {{0, 1}, {1}}, {{0, 2}, {1}}}) {
      try {
        (void)world.split(groups);
        ADD_FAILURE() << "split accepted a list that is not a partition of the 2 ranks";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("split: "), std::string::npos) << e.what();
      }
    }
  });
}

TEST(Communicator, WorldOfOneNeedsNoGroup) {
  const Communicator one;
  EXPECT_EQ(one.size(), 1);
  EXPECT_EQ(one.backend(), "none");
  at::Tensor t = at::tensor({2.0f});
  one.all_reduce(t, ReduceOp::avg);
  EXPECT_EQ(t.item<float>(), 2.0f);
  EXPECT_TRUE(one.all_gather(t).equal(t));
  one.barrier();
  EXPECT_EQ(one.split({{0}}).size(), 1);
}

}  // namespace
}  // namespace verlpp::dist
