#include "verlpp/engine/metric_accumulator.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace verlpp::engine {
namespace {

double combine(const std::vector<double>& values, algo::Aggregation how) {
  switch (how) {
    case algo::Aggregation::min:
      return *std::min_element(values.begin(), values.end());
    case algo::Aggregation::max:
      return *std::max_element(values.begin(), values.end());
    case algo::Aggregation::mean:
      break;
  }
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace

void MetricAccumulator::append_all(const algo::Metrics& metrics) {
  for (const auto& [key, value] : metrics) append(key, value);
}

algo::Metrics MetricAccumulator::combined(const std::string& prefix) const {
  algo::Metrics out;
  for (const auto& [key, values] : values_) {
    out[prefix + key] = combine(values, algo::aggregation_of(key));
  }
  return out;
}

algo::Metrics reduce_over_ranks(const algo::Metrics& local, const dist::Communicator& dp,
                                const std::set<std::string>& summed, const std::string& prefix) {
  const auto op_of = [&](const std::string& key) {
    if (summed.count(key)) return dist::ReduceOp::sum;
    switch (algo::aggregation_of(key.substr(std::min(prefix.size(), key.size())))) {
      case algo::Aggregation::min:
        return dist::ReduceOp::min;
      case algo::Aggregation::max:
        return dist::ReduceOp::max;
      case algo::Aggregation::mean:
        break;
    }
    return dist::ReduceOp::avg;
  };
  std::map<dist::ReduceOp, std::vector<double>> by_op;
  for (const auto& [key, value] : local) by_op[op_of(key)].push_back(value);
  for (auto& [op, values] : by_op) values = dp.all_reduce(values, op);
  std::map<dist::ReduceOp, std::size_t> next;
  algo::Metrics out;
  for (const auto& [key, value] : local) {
    const dist::ReduceOp op = op_of(key);
    const double reduced = by_op[op][next[op]++];
    // An extreme over no tokens at all (every micro-batch of every rank empty) reads 0, as verl.
    const bool extreme = op == dist::ReduceOp::min || op == dist::ReduceOp::max;
    out[key] = extreme && std::isinf(reduced) ? 0.0 : reduced;
  }
  return out;
}

}  // namespace verlpp::engine
