/* A custom reward written against verlpp_reward_abi.h, loaded by custom_reward_test.cpp. */
#include <math.h>
#include <string.h>

#include "verlpp/reward/verlpp_reward_abi.h"

int verlpp_reward_abi_version(void) { return VERLPP_REWARD_ABI_VERSION; }

/* 1.0 when the response equals the ground truth, 0.5 when it contains it, else 0; +10 when the
   extra_info JSON mentions "bonus" (shows that extra_info arrives). */
double exact_match(const char* data_source, const char* solution_str, const char* ground_truth,
                   const char* extra_info_json) {
  (void)data_source;
  double score = 0.0;
  if (strcmp(solution_str, ground_truth) == 0) {
    score = 1.0;
  } else if (strstr(solution_str, ground_truth) != NULL) {
    score = 0.5;
  }
  if (strstr(extra_info_json, "bonus") != NULL) score += 10.0;
  return score;
}

double always_fails(const char* data_source, const char* solution_str, const char* ground_truth,
                    const char* extra_info_json) {
  (void)data_source;
  (void)solution_str;
  (void)ground_truth;
  (void)extra_info_json;
  return NAN;
}

double always_infinite(const char* data_source, const char* solution_str, const char* ground_truth,
                       const char* extra_info_json) {
  (void)data_source;
  (void)solution_str;
  (void)ground_truth;
  (void)extra_info_json;
  return -INFINITY;
}
