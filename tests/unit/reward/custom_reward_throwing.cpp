// A custom reward written in C++ against verlpp_reward_abi.h that throws (user code gone wrong),
// loaded by custom_reward_test.cpp.
#include <stdexcept>

#include "verlpp/reward/verlpp_reward_abi.h"

extern "C" int verlpp_reward_abi_version(void) { return VERLPP_REWARD_ABI_VERSION; }

extern "C" double throws_runtime_error(const char*, const char*, const char*, const char*) {
  throw std::runtime_error("no answer parser for this data source");
}
