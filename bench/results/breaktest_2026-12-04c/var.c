#include <string.h>
#include "verlpp/reward/verlpp_reward_abi.h"
int verlpp_reward_abi_version(void) { return VERLPP_REWARD_ABI_VERSION; }
double varied(const char* ds, const char* s, const char* gt, const char* ei) {
  (void)ds;(void)gt;(void)ei;
  unsigned h = 2166136261u; for (const char* p = s; *p; ++p) h = (h ^ (unsigned char)*p) * 16777619u;
  return (double)(h % 1000) / 1000.0;
}
