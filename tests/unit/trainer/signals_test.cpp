#include "verlpp/trainer/signals.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "../dist/two_ranks.h"
#include "verlpp/dist/communicator.h"

namespace verlpp::trainer {
namespace {

TEST(StopRequest, FirstSignalIsRecordedNotFatal) {
  const StopRequest stop;
  EXPECT_FALSE(stop.requested());
  EXPECT_EQ(stop.signal(), 0);
  std::raise(SIGTERM);
  EXPECT_TRUE(stop.requested());
  EXPECT_EQ(stop.signal(), SIGTERM);
}

// A shell reports a process that SIGINT or SIGTERM ended as 130 or 143; a trainer that saved first
// exits the same, so that `train && eval` does not go on (report bt8).
TEST(StopRequest, StoppedExitCodeIsWhatAShellReportsForTheSignal) {
  EXPECT_EQ(stopped_exit_code(0), 0);
  EXPECT_EQ(stopped_exit_code(SIGINT), 130);
  EXPECT_EQ(stopped_exit_code(SIGTERM), 143);
}

TEST(StopRequest, AWorldOfOneAgreesWithItself) {
  const StopRequest stop;
  const dist::Communicator world;
  EXPECT_EQ(stop.agreed_signal(world), 0);
  std::raise(SIGINT);
  EXPECT_EQ(stop.agreed_signal(world), SIGINT);
}

// Only rank 0 was signalled: both ranks learn it at the same call, so both stop after that step.
TEST(StopRequest, EveryRankAgreesOnTheSignalOfAny) {
  if (!dist::Communicator::backend_available(at::Device(at::kCPU))) GTEST_SKIP() << "no Gloo";
  dist::test_ranks::run_two_ranks(
      [](const dist::Communicator& world) {
        const StopRequest stop;
        EXPECT_EQ(stop.agreed_signal(world), 0);
        std::raise(SIGTERM);
        EXPECT_EQ(stop.agreed_signal(world), SIGTERM);
      },
      [](const dist::Communicator& world) {
        const StopRequest stop;
        EXPECT_EQ(stop.agreed_signal(world), 0);
        EXPECT_EQ(stop.agreed_signal(world), SIGTERM);
        EXPECT_FALSE(stop.requested());
      });
}

TEST(StopRequest, ANewRequestStartsClear) {
  {
    const StopRequest stop;
    std::raise(SIGINT);
    EXPECT_TRUE(stop.requested());
  }
  const StopRequest again;
  EXPECT_FALSE(again.requested());
}

// The same Ctrl-C reaching a rank from the terminal and from `verlpp launch`, or GNU timeout's two
// deliveries: still one stop request, no termination (report bt6, cases 1 and 4).
TEST(StopRequest, OneSignalDeliveredTwiceIsOneRequest) {
  const StopRequest stop;
  std::raise(SIGINT);
  std::raise(SIGINT);
  std::raise(SIGTERM);
  EXPECT_TRUE(stop.requested());
  EXPECT_EQ(stop.signal(), SIGINT);  // the first one
}

// The launcher's copy of a Ctrl-C may arrive after the training loop (and its StopRequest) ended,
// while the run writes its plot and summary: still one request (report bt9, repeat_after_loop).
TEST(StopRequest, ACopyAfterTheLoopEndedIsStillOneRequest) {
  {
    const StopRequest stop;
    std::raise(SIGINT);
  }
  std::raise(SIGINT);
  SUCCEED();
}

// Inherited "ignore" (a shell's background job, trap '' TERM) stays, as Python leaves it.
TEST(StopRequestDeathTest, AnInheritedIgnoreStays) {
  EXPECT_EXIT(
      {
        std::signal(SIGTERM, SIG_IGN);
        const StopRequest stop;
        std::raise(SIGTERM);
        std::exit(stop.requested() ? 1 : 0);
      },
      testing::ExitedWithCode(0), "");
}

TEST(StopRequestDeathTest, ALaterSecondSignalTerminates) {
  EXPECT_EXIT(
      {
        const StopRequest stop;
        std::raise(SIGINT);
        std::this_thread::sleep_for(std::chrono::duration<double>(kRepeatedSignalSeconds + 0.2));
        std::raise(SIGINT);
        std::exit(0);
      },
      testing::KilledBySignal(SIGINT), "");
}

}  // namespace
}  // namespace verlpp::trainer
