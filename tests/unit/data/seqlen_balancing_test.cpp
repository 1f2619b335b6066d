// Karmarkar-Karp balancing against partitions worked out by hand in the comments below, following
// verl's karmarkar_karp step by step (heap order, merge of set i with set k-1-i).
#include "verlpp/data/seqlen_balancing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

// values 1..6, k = 2, equal size. Initial states (one per run of k sorted values, sets in
// descending order): S0 = [{2}, {1}], S1 = [{4}, {3}], S2 = [{6}, {5}], all of spread 1; ties go to
// the larger first set, so S2 then S1 leave the heap first. S2 + S1 (set i with set 1 - i):
// [{6, 3} = 9, {5, 4} = 9], spread 0. Then S0 (spread 1) leaves before it: [{2} + {5, 4},
// {1} + {6, 3}] = [{2, 5, 4} = 11, {1, 6, 3} = 10] -> indices {1, 3, 4} and {0, 2, 5}.
TEST(SeqlenBalancing, KarmarkarKarpEqualSizeByHand) {
  const auto parts = karmarkar_karp_partitions({1, 2, 3, 4, 5, 6}, 2, true);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0], (std::vector<std::int64_t>{1, 3, 4}));
  EXPECT_EQ(parts[1], (std::vector<std::int64_t>{0, 2, 5}));
}

// balanced_order lays each partition out sorted by workload, even positions then the odd ones
// reversed: {1, 3, 4} -> 1, 4, 3 and {0, 2, 5} -> 0, 5, 2. The contiguous chunks of the lengths
// 1..6 sum to 6 and 15 before and to 2 + 5 + 4 = 11 and 1 + 6 + 3 = 10 after.
TEST(SeqlenBalancing, BalancedOrderAndMetricsByHand) {
  const std::vector<std::int64_t> lengths = {1, 2, 3, 4, 5, 6};
  const auto order = balanced_order(lengths, 2);
  EXPECT_EQ(order, (std::vector<std::int64_t>{1, 4, 3, 0, 5, 2}));
  const auto m = seqlen_unbalance_metrics(lengths, order, 2);
  EXPECT_EQ(m.at("global_seqlen/min"), 6);
  EXPECT_EQ(m.at("global_seqlen/max"), 15);
  EXPECT_EQ(m.at("global_seqlen/minmax_diff"), 9);
  EXPECT_EQ(m.at("global_seqlen/balanced_min"), 10);
  EXPECT_EQ(m.at("global_seqlen/balanced_max"), 11);
  EXPECT_EQ(m.at("global_seqlen/mean"), 10.5);
}

TEST(SeqlenBalancing, WorkloadIsVerlsFormula) {
  EXPECT_EQ(row_workloads({0, 1, 100}), (std::vector<std::int64_t>{0, 24577, 2467600}));
}

// One partition keeps the whole batch; the single-rank layout is small ... large ... small.
TEST(SeqlenBalancing, OnePartitionKeepsEveryRow) {
  const auto parts = karmarkar_karp_partitions({7, 3, 9, 1}, 1, true);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0], (std::vector<std::int64_t>{0, 1, 2, 3}));
  // lengths by index: 7, 3, 9, 1 -> sorted rows 3, 1, 0, 2 -> 3, 0 then 2, 1.
  EXPECT_EQ(balanced_order({7, 3, 9, 1}, 1), (std::vector<std::int64_t>{3, 0, 2, 1}));
}

// Random batches: every row exactly once.
TEST(SeqlenBalancing, RandomBatchesArePermutations) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const std::int64_t k = 1 + trial % 4;
    std::vector<std::int64_t> lengths(static_cast<std::size_t>(k * (1 + trial)));
    for (auto& l : lengths) l = std::uniform_int_distribution<std::int64_t>(1, 2000)(rng);
    const auto order = balanced_order(lengths, k);
    std::vector<std::int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int64_t> all(lengths.size());
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all);
  }
}

TEST(SeqlenBalancing, BadSizesAreErrors) {
  EXPECT_THROW(karmarkar_karp_partitions({1, 2, 3}, 2, true), Error);
  EXPECT_THROW(karmarkar_karp_partitions({1, 2, 3}, 0, false), Error);
  EXPECT_EQ(karmarkar_karp_partitions({1, 2, 3}, 2, false).size(), 2u);
}

}  // namespace
}  // namespace verlpp::data
