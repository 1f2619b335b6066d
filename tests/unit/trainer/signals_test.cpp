#include "verlpp/trainer/signals.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace verlpp::trainer {
namespace {

TEST(StopRequest, FirstSignalIsRecordedNotFatal) {
  const StopRequest stop;
  EXPECT_FALSE(stop.requested());
  std::raise(SIGTERM);
  EXPECT_TRUE(stop.requested());
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
