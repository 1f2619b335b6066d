// Balancing rows over data-parallel ranks by workload (verl: verl/utils/seqlen_balancing.py and
// RayPPOTrainer._balance_batch; distributed.md §1.3). Pure index arithmetic, no tensors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace verlpp::data {

// verl's calculate_workload: 24576·L + L² per row of L tokens (prompt + response), "calibrated for
// a 7B model with hidden size 4096" (attention grows as L², the rest as L).
std::vector<std::int64_t> row_workloads(const std::vector<std::int64_t>& lengths);

// verl's karmarkar_karp (largest differencing): k sets whose sums are as equal as the heuristic
// finds, every index exactly once, each set's indices ascending. With equal_size every set holds
// values.size() / k indices. Ties resolve as verl's heapq-based code does, so the partitions equal
// verl's. Throws verlpp::Error for k < 1, or with equal_size when k does not divide the count.
std::vector<std::vector<std::int64_t>> karmarkar_karp_partitions(
    const std::vector<std::int64_t>& values, std::int64_t k, bool equal_size);

// trainer.balance_batch (legacy trainer): the row order that hands rank r the r-th of the
// equal-size Karmarkar-Karp partitions of the workloads, each laid out small ... large ... small
// (sorted by (workload, index), then the even positions followed by the odd ones reversed) as verl
// does for pipeline bubbles. `lengths`: attention-mask sums per row; rows % dp_size == 0.
std::vector<std::int64_t> balanced_order(const std::vector<std::int64_t>& lengths,
                                         std::int64_t dp_size);

// verl's log_seqlen_unbalance with prefix "global_seqlen": the token sums of the dp contiguous
// chunks before balancing (min, max, minmax_diff, mean) and of the balanced ones (balanced_min,
// balanced_max). `order` as returned by balanced_order.
std::map<std::string, double> seqlen_unbalance_metrics(const std::vector<std::int64_t>& lengths,
                                                       const std::vector<std::int64_t>& order,
                                                       std::int64_t dp_size);

}  // namespace verlpp::data
