#include "verlpp/trainer/validation_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace verlpp::trainer {
namespace {

constexpr int kBootstrapDraws = 1000;

struct Response {
  double value;
  std::optional<std::string> pred;
};

// uid → variable → responses, per data_source.
using UidGroups = std::map<std::string, std::map<std::string, std::vector<Response>>>;

std::vector<int> draw_sizes(int n_responses) {
  std::vector<int> sizes;
  for (int n = 2; n < n_responses; n *= 2) sizes.push_back(n);
  sizes.push_back(n_responses);
  return sizes;
}

double mean_of(const std::vector<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double population_std(const std::vector<double>& values) {
  const double mean = mean_of(values);
  double sum = 0;
  for (double v : values) sum += (v - mean) * (v - mean);
  return std::sqrt(sum / static_cast<double>(values.size()));
}

double majority_value(const std::vector<const Response*>& draw) {
  std::map<std::string, int> counts;
  std::vector<std::string> order;
  for (const auto* response : draw) {
    if (counts[*response->pred]++ == 0) order.push_back(*response->pred);
  }
  std::string winner = order.front();
  for (const auto& pred : order) {
    if (counts[pred] > counts[winner]) winner = pred;
  }
  for (const auto* response : draw) {
    if (*response->pred == winner) return response->value;
  }
  return draw.front()->value;
}

std::pair<double, double> majority_of_n(const std::vector<Response>& responses, int n,
                                        std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<std::size_t> pick(0, responses.size() - 1);
  std::vector<double> results;
  std::vector<const Response*> draw(n);
  for (int b = 0; b < kBootstrapDraws; ++b) {
    for (auto& slot : draw) slot = &responses[pick(generator)];
    results.push_back(majority_value(draw));
  }
  return {mean_of(results), population_std(results)};
}

std::map<std::string, double> metrics_of_uid(const std::vector<Response>& responses,
                                             std::uint64_t seed) {
  std::vector<double> values;
  for (const auto& r : responses) values.push_back(r.value);
  const int count = static_cast<int>(values.size());
  std::map<std::string, double> metric = {{fmt::format("mean@{}", count), mean_of(values)}};
  if (count <= 1) return metric;
  metric[fmt::format("std@{}", count)] = population_std(values);
  const bool has_pred = std::all_of(responses.begin(), responses.end(),
                                    [](const Response& r) { return r.pred.has_value(); });
  for (int n : draw_sizes(count)) {
    const auto [best_mean, best_std] = best_of_n(values, n, true);
    const auto [worst_mean, worst_std] = best_of_n(values, n, false);
    metric[fmt::format("best@{}/mean", n)] = best_mean;
    metric[fmt::format("best@{}/std", n)] = best_std;
    metric[fmt::format("worst@{}/mean", n)] = worst_mean;
    metric[fmt::format("worst@{}/std", n)] = worst_std;
    if (has_pred) {
      const auto [maj_mean, maj_std] = majority_of_n(responses, n, seed);
      metric[fmt::format("maj@{}/mean", n)] = maj_mean;
      metric[fmt::format("maj@{}/std", n)] = maj_std;
    }
  }
  return metric;
}

int draws_of(const std::string& metric_name) {
  const auto at = metric_name.find('@');
  return std::stoi(metric_name.substr(at + 1, metric_name.find('/', at) - at - 1));
}

bool is_core_metric(const std::string& name, int n_max) {
  const bool headline =
      name.rfind("mean", 0) == 0 || name.rfind("maj", 0) == 0 || name.rfind("best", 0) == 0;
  return headline && name.find(fmt::format("@{}", n_max)) != std::string::npos;
}

void add_data_source(const std::string& data_source, const UidGroups& uids, std::uint64_t seed,
                     Metrics& out) {
  std::map<std::string, std::map<std::string, std::vector<double>>> per_var;  // var → metric → uids
  for (const auto& [uid, variables] : uids) {
    for (const auto& [variable, responses] : variables) {
      for (const auto& [name, value] : metrics_of_uid(responses, seed)) {
        per_var[variable][name].push_back(value);
      }
    }
  }
  const std::string core_var = per_var.count("acc") ? "acc" : "reward";
  for (const auto& [variable, metrics] : per_var) {
    int n_max = 0;
    for (const auto& [name, values] : metrics) n_max = std::max(n_max, draws_of(name));
    for (const auto& [name, values] : metrics) {
      const bool core = variable == core_var && is_core_metric(name, n_max);
      out[fmt::format("{}/{}/{}/{}", core ? "val-core" : "val-aux", data_source, variable, name)] =
          mean_of(values);
    }
  }
}

}  // namespace

std::pair<double, double> best_of_n(std::vector<double> values, int n, bool maximum) {
  // With values sorted ascending, P(max of n draws ≤ v_k) = (k/N)^n; the min mirrors it.
  std::sort(values.begin(), values.end());
  if (!maximum) std::reverse(values.begin(), values.end());
  const double count = static_cast<double>(values.size());
  double mean = 0, second_moment = 0;
  for (std::size_t k = 1; k <= values.size(); ++k) {
    const double p = std::pow(static_cast<double>(k) / count, n) -
                     std::pow(static_cast<double>(k - 1) / count, n);
    mean += p * values[k - 1];
    second_moment += p * values[k - 1] * values[k - 1];
  }
  return {mean, std::sqrt(std::max(0.0, second_moment - mean * mean))};
}

Metrics validation_metrics(const std::vector<ValidationSample>& samples, std::uint64_t seed) {
  std::map<std::string, UidGroups> groups;
  for (const auto& sample : samples) {
    for (const auto& [variable, value] : sample.values) {
      groups[sample.data_source][sample.uid][variable].push_back({value, sample.pred});
    }
  }
  Metrics out;
  for (const auto& [data_source, uids] : groups) add_data_source(data_source, uids, seed, out);
  return out;
}

}  // namespace verlpp::trainer
