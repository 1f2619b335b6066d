#include "verlpp/trainer/progress.h"

#include <gtest/gtest.h>

namespace verlpp::trainer {
namespace {

TEST(Progress, Durations) {
  EXPECT_EQ(format_duration(44.6), "45s");
  EXPECT_EQ(format_duration(272), "4m32s");
  EXPECT_EQ(format_duration(7500), "2h05m");
  EXPECT_EQ(format_duration(-3), "0s");
}

TEST(Progress, BarFillsProportionallyAndEstimatesTheRest) {
  // 12 of 100 steps at 3 s/step: 88 × 3 = 264 s left; 12% of 10 cells = 1 filled.
  EXPECT_EQ(format_progress(12, 100, 3.0, 10),
            "[#---------] 12/100 steps | 3.0 s/step | ETA 4m24s");
  EXPECT_EQ(format_progress(0, 100, 0.0, 4), "[----] 0/100 steps");
  EXPECT_EQ(format_progress(5, 5, 1.0, 4), "[####] 5/5 steps | 1.0 s/step | ETA 0s");
}

}  // namespace
}  // namespace verlpp::trainer
