// Real ranks for tests: the test forks the other ranks' processes and all join one Gloo group over
// a TCPStore on a free local port (CPU). Skip where Communicator::backend_available(CPU) is false.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "verlpp/dist/communicator.h"

namespace verlpp::dist::test_ranks {

using Body = std::function<void(const Communicator&)>;

// Runs `rank0` here as rank 0 and `rank1` in a child process as rank 1; the child's failed
// expectations or exceptions make it exit non-zero, which fails the test.
void run_two_ranks(const Body& rank0, const Body& rank1);
void run_both(const Body& body);
// Runs `body` on `world` ranks: rank 0 here, the others in child processes (as run_two_ranks).
void run_ranks(int world, const Body& body);

// The fixture of two-rank tests: skips them in a build without Gloo.
class GlooTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Communicator::backend_available(at::Device(at::kCPU))) {
      GTEST_SKIP() << "this build has no Gloo";
    }
  }
};

}  // namespace verlpp::dist::test_ranks
