#include "kernel_profile.h"

#include <torch/csrc/autograd/profiler_kineto.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace verlpp::bench {

void print_kernel_profile(const std::string& title, const std::function<void()>& work, int top) {
  namespace prof = torch::profiler::impl;
  const prof::ProfilerConfig config(prof::ProfilerState::KINETO);
  const std::set<prof::ActivityType> activities = {prof::ActivityType::CPU,
                                                   prof::ActivityType::CUDA};
  torch::autograd::profiler::prepareProfiler(config, activities);
  torch::autograd::profiler::enableProfiler(config, activities);
  work();
  const auto result = torch::autograd::profiler::disableProfiler();
  std::map<std::string, std::pair<double, int>> kernels;
  double total = 0;
  for (const auto& event : result->events()) {
    if (event.deviceType() != c10::DeviceType::CUDA) continue;
    auto& entry = kernels[event.name().substr(0, 120)];
    entry.first += static_cast<double>(event.durationNs()) / 1e6;
    entry.second += 1;
    total += static_cast<double>(event.durationNs()) / 1e6;
  }
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [name, entry] : kernels) order.emplace_back(entry.first, name);
  std::sort(order.rbegin(), order.rend());
  std::cout << "total CUDA kernel ms in " << title << ": " << total << "\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(static_cast<std::size_t>(top), order.size());
       ++i) {
    std::cout << order[i].first << " ms  x" << kernels[order[i].second].second << "  "
              << order[i].second << "\n";
  }
}

}  // namespace verlpp::bench
