#include "verlpp/trainer/signals.h"

#include <gtest/gtest.h>

#include <csignal>

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

}  // namespace
}  // namespace verlpp::trainer
