// Metric values collected over micro- and mini-batches and averaged per key, as verl's
// reduce_metrics (verl/utils/metric/utils.py) averages the lists its workers append to.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "verlpp/algo/metrics.h"

namespace verlpp::engine {

class MetricAccumulator {
 public:
  void append(const std::string& key, double value) { values_[key].push_back(value); }
  void append_all(const algo::Metrics& metrics);
  // The mean of each key's values, named prefix + key.
  algo::Metrics means(const std::string& prefix) const;

 private:
  std::map<std::string, std::vector<double>> values_;
};

}  // namespace verlpp::engine
