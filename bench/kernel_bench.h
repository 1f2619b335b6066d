// What the single-kernel benchmarks (decode attention, delta-rule decode) share: integer options
// from the command line and the wall time of a CUDA call averaged over iterations.
#pragma once

#include <torch/cuda.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <string>

namespace verlpp::bench {

// The integer after `name` on the command line (e.g. --seqs 256), else `fallback`.
inline std::int64_t option(int argc, char** argv, const std::string& name, std::int64_t fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return std::stoll(argv[i + 1]);
  }
  return fallback;
}

// Milliseconds per call of `call` over `iters` calls, after one warm-up call; the device is
// synchronized before and after the timed calls.
inline double ms_per_call(std::int64_t iters, const std::function<void()>& call) {
  call();
  torch::cuda::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < iters; ++i) call();
  torch::cuda::synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
         static_cast<double>(iters);
}

// main() of a benchmark: run(argc, argv), or "NAME: message" on stderr and 1 for an exception.
inline int main_of(const char* name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace verlpp::bench
