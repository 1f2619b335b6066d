#include "verlpp/engine/metric_accumulator.h"

#include <numeric>

namespace verlpp::engine {

void MetricAccumulator::append_all(const algo::Metrics& metrics) {
  for (const auto& [key, value] : metrics) append(key, value);
}

algo::Metrics MetricAccumulator::means(const std::string& prefix) const {
  algo::Metrics out;
  for (const auto& [key, values] : values_) {
    out[prefix + key] =
        std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  }
  return out;
}

algo::Metrics reduce_over_ranks(const algo::Metrics& local, const dist::Communicator& dp,
                                const std::set<std::string>& summed) {
  std::vector<double> sums, means;
  for (const auto& [key, value] : local) (summed.count(key) ? sums : means).push_back(value);
  sums = dp.all_reduce(sums, dist::ReduceOp::sum);
  means = dp.all_reduce(means, dist::ReduceOp::avg);
  algo::Metrics out;
  std::size_t s = 0, m = 0;
  for (const auto& [key, value] : local) out[key] = summed.count(key) ? sums[s++] : means[m++];
  return out;
}

}  // namespace verlpp::engine
