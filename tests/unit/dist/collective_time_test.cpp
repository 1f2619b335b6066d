// dist::collective_seconds on Gloo ranks: a collective's time is the caller's wait for it, so a
// rank whose peer arrives 300 ms late spends at least that long in it, and never more than the
// wall time around it; work outside collectives and a world of one (no c10d group) add nothing.
#include "verlpp/dist/collective_time.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "two_ranks.h"

namespace verlpp::dist {
namespace {

using test_ranks::GlooTest;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(GlooTest, CollectiveTimeIsTheWaitForTheCollective) {
  constexpr double kLate = 0.3;
  const auto waits = [&](const Communicator& c) {
    const double before = collective_seconds();
    const auto start = std::chrono::steady_clock::now();
    at::Tensor t = at::ones({1 << 16});
    c.all_reduce(t, ReduceOp::sum);
    const double wall = seconds_since(start);
    const double spent = collective_seconds() - before;
    EXPECT_GE(spent, kLate * 0.95);  // steady-clock granularity aside
    EXPECT_LE(spent, wall);
    EXPECT_EQ(t[0].item<float>(), 2.0f);
    const double after = collective_seconds();
    (void)at::randn({256, 256}).matmul(at::randn({256, 256})).sum().item<float>();
    EXPECT_EQ(collective_seconds(), after);
  };
  const auto late = [&](const Communicator& c) {
    std::this_thread::sleep_for(std::chrono::duration<double>(kLate));
    at::Tensor t = at::ones({1 << 16});
    c.all_reduce(t, ReduceOp::sum);
  };
  test_ranks::run_two_ranks(waits, late);
}

TEST(CollectiveTime, AWorldOfOneAddsNothing) {
  const Communicator one;
  const double before = collective_seconds();
  at::Tensor t = at::ones({16});
  one.all_reduce(t, ReduceOp::sum);
  (void)one.all_gather(t);
  EXPECT_EQ(collective_seconds(), before);
}

}  // namespace
}  // namespace verlpp::dist
