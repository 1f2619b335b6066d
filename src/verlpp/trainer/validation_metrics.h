// verl's validation metrics (verl/trainer/ppo/metric_utils.py::process_validation_metrics and the
// key naming of the trainer's _validate; verl.md §7.4).
//
// Samples are grouped by data_source and prompt uid. For every numeric variable (reward, acc, ...)
// and uid with N responses: mean@N, std@N (population std, N > 1), and for n in {2, 4, 8, ...} ∪
// {N} (n ≤ N): best@n/{mean,std}, worst@n/{mean,std} of the max/min over n responses drawn with
// replacement, and maj@n/{mean,std} (the value of the first response carrying the most common
// `pred`) when predictions exist. Each metric is then averaged over the uids of a data_source.
// Keys: val-core/{data_source}/{var}/{metric} for the core variable (acc if present, else reward)
// and metrics mean*/maj*/best* at n = N; every other key goes under val-aux/.
//
// Deviation from verl: best@n and worst@n are the exact expectations over all n-draws (verl
// estimates them with 1,000 numpy bootstrap draws, seed 42); maj@n uses 1,000 draws of verlpp's
// own seeded generator, so it agrees with verl's only up to bootstrap noise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/trainer/tracking.h"

namespace verlpp::trainer {

struct ValidationSample {
  std::string data_source;
  std::string uid;                       // the prompt's uid (shared by its n responses)
  std::map<std::string, double> values;  // e.g. {"reward": 1.0, "acc": 1.0}
  std::optional<std::string> pred;       // the extracted answer, for maj@n
};

Metrics validation_metrics(const std::vector<ValidationSample>& samples, std::uint64_t seed = 42);

// Mean and population std of the max (or min) of n draws with replacement from `values`.
std::pair<double, double> best_of_n(std::vector<double> values, int n, bool maximum);

}  // namespace verlpp::trainer
