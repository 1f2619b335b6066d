// Metrics returned by the algorithm functions: verl's metric names without the "actor/" or
// "critic/" prefix that verl's trainer adds (pg_loss, pg_clipfrac, ppo_kl, pg_clipfrac_lower,
// vf_loss, ...; verl.md §7.6), as plain numbers.
#pragma once

#include <map>
#include <string>

namespace verlpp::algo {

using Metrics = std::map<std::string, double>;

// How a metric's values over micro-batches and ranks combine (verl's Metric.aggregation). Most are
// averaged; the distillation extremes take the extreme: distillation/loss_min and loss_max
// (compute_distillation_loss_range, AggregationType.MIN / MAX) and the top-k mass metrics'
// _min / _max. bt15: averaging them made loss_max 6.52 / 5.94 / 3.00 for 1 / 2 / 4 micro-batches
// of the same step.
enum class Aggregation { mean, min, max };

// `key` without the actor/ or critic/ prefix.
inline Aggregation aggregation_of(const std::string& key) {
  if (key.rfind("distillation/", 0) != 0) return Aggregation::mean;
  if (key.ends_with("_min")) return Aggregation::min;
  if (key.ends_with("_max")) return Aggregation::max;
  return Aggregation::mean;
}

}  // namespace verlpp::algo
