// Crash points for the kill tests (tests/e2e/ppo_kill_test.sh): when the environment variable
// VERLPP_KILL_AT is "NAME@STEP", the process kills itself with SIGKILL at the point NAME of global
// step STEP, as a power cut or the OOM killer would, so that a test can check what a kill there
// leaves on disk and that the next run resumes from a complete checkpoint. Without the variable
// (every normal run) a point does nothing. Points: checkpoint_dir.cpp's commit.
#pragma once

#include <cstdint>

namespace verlpp {

void fault_point(const char* name, std::int64_t step);

}  // namespace verlpp
