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

}  // namespace verlpp::engine
