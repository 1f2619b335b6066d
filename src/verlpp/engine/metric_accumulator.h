// Metric values collected over micro- and mini-batches and combined per key as verl's
// reduce_metrics (verl/utils/metric/utils.py) combines the lists its workers append to: averaged,
// or the minimum / maximum for the keys algo::aggregation_of names.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "verlpp/algo/metrics.h"
#include "verlpp/dist/communicator.h"

namespace verlpp::engine {

class MetricAccumulator {
 public:
  void append(const std::string& key, double value) { values_[key].push_back(value); }
  void append_all(const algo::Metrics& metrics);
  // Each key's values combined (algo::aggregation_of), named prefix + key.
  algo::Metrics combined(const std::string& prefix) const;

 private:
  std::map<std::string, std::vector<double>> values_;
};

// A worker's metrics combined over its data-parallel ranks as verl combines them
// (engine_workers.py, Metric.aggregate_dp; distributed.md §1.7): keys in `summed` are partial sums
// of a loss normalised by the global batch and add up over ranks; the minimum / maximum keys of
// algo::aggregation_of (after `prefix`) take the ranks' extreme; every other key is averaged
// (with equal micro-batch counts per rank, verl's mean over ranks per micro-batch then over
// micro-batches). Every rank must pass the same keys.
algo::Metrics reduce_over_ranks(const algo::Metrics& local, const dist::Communicator& dp,
                                const std::set<std::string>& summed, const std::string& prefix);

}  // namespace verlpp::engine
