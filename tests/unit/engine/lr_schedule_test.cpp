#include "verlpp/engine/lr_schedule.h"

#include <gtest/gtest.h>

#include <cmath>

#include "verlpp/core/error.h"

namespace verlpp::engine {
namespace {

TEST(LrSchedule, ConstantWithWarmupStepsStartsAtZero) {
  LrScheduleConfig config;
  config.lr = 1e-3;
  config.lr_warmup_steps = 4;
  const LrSchedule schedule(config, 100);
  EXPECT_DOUBLE_EQ(schedule.lr_at(0), 0.0);
  EXPECT_DOUBLE_EQ(schedule.lr_at(1), 0.25e-3);
  EXPECT_DOUBLE_EQ(schedule.lr_at(3), 0.75e-3);
  EXPECT_DOUBLE_EQ(schedule.lr_at(4), 1e-3);
  EXPECT_DOUBLE_EQ(schedule.lr_at(99), 1e-3);
}

TEST(LrSchedule, ConstantWithoutWarmupIsFlat) {
  LrScheduleConfig config;
  config.lr = 2e-6;
  const LrSchedule schedule(config, 10);
  EXPECT_EQ(schedule.warmup_steps(), 0);
  EXPECT_DOUBLE_EQ(schedule.lr_at(0), 2e-6);
}

TEST(LrSchedule, WarmupRatioIsTruncatedFractionOfTotalSteps) {
  LrScheduleConfig config;
  config.lr_warmup_steps_ratio = 0.1;
  EXPECT_EQ(LrSchedule(config, 25).warmup_steps(), 2);  // int(2.5)
  config.lr_warmup_steps = 0;                           // 0 or negative: use the ratio
  EXPECT_EQ(LrSchedule(config, 25).warmup_steps(), 2);
}

TEST(LrSchedule, CosineHandWorked) {
  LrScheduleConfig config;
  config.lr = 1.0;
  config.lr_scheduler_type = "cosine";
  config.lr_warmup_steps = 2;
  config.min_lr_ratio = 0.1;
  const LrSchedule schedule(config, 10);  // decay over T - W = 8 steps
  EXPECT_DOUBLE_EQ(schedule.lr_at(1), 0.5);
  EXPECT_DOUBLE_EQ(schedule.lr_at(2), 1.0);  // p = 0: cos 0 · 0.45 + 0.55
  // p = 4/8: cos(π/2) = 0 → 0.55
  EXPECT_NEAR(schedule.lr_at(6), 0.55, 1e-15);
  // p = 1: cos(π) = -1 → -0.45 + 0.55 = 0.1 = min_lr_ratio
  EXPECT_NEAR(schedule.lr_at(10), 0.1, 1e-15);
  // p = 2/8: cos(π/4)·0.45 + 0.55 = 0.868198...
  EXPECT_NEAR(schedule.lr_at(4), 0.45 * std::sqrt(0.5) + 0.55, 1e-15);
}

TEST(LrSchedule, CosineOneIndexedShiftsByOne) {
  LrScheduleConfig config;
  config.lr = 1.0;
  config.lr_scheduler_type = "cosine";
  config.zero_indexed_step = false;
  const LrSchedule schedule(config, 4);                    // no warmup; p = (t+1)/4
  EXPECT_NEAR(schedule.lr_at(1), 0.0 * 0.5 + 0.5, 1e-15);  // p = 1/2 → cos(π/2) = 0 → 0.5
}

TEST(LrSchedule, UnknownTypeNamesTheKey) {
  LrScheduleConfig config;
  config.lr_scheduler_type = "linear";
  try {
    LrSchedule schedule(config, 10);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "optim.lr_scheduler_type: expected constant or cosine, got 'linear'");
  }
}

}  // namespace
}  // namespace verlpp::engine
