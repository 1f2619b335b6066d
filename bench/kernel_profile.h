// CUDA kernel time per kernel name of one piece of work (LibTorch's Kineto profiler), for the
// benchmarks' *_profile builds: where a step's device time goes.
#pragma once

#include <functional>
#include <string>

namespace verlpp::bench {

// Runs `work` under the profiler (it must wait for the device before returning) and prints the
// total CUDA kernel milliseconds and the `top` largest kernels (ms, launches, name) on stdout,
// under `title`.
void print_kernel_profile(const std::string& title, const std::function<void()>& work,
                          int top = 40);

}  // namespace verlpp::bench
