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

/* Several named rewards (verl's dict return): "score" as exact_match, "format" 1 when the response
   holds "####", "length" its byte count. */
int two_rewards_named(const char* data_source, const char* solution_str, const char* ground_truth,
                      const char* extra_info_json, const char** names, double* values,
                      int capacity) {
  if (capacity < 3) return -1;
  names[0] = "score";
  values[0] = exact_match(data_source, solution_str, ground_truth, extra_info_json);
  names[1] = "format";
  values[1] = strstr(solution_str, "####") != NULL ? 1.0 : 0.0;
  names[2] = "length";
  values[2] = (double)strlen(solution_str);
  return 3;
}

/* Named values without "score". */
int no_score_named(const char* data_source, const char* solution_str, const char* ground_truth,
                   const char* extra_info_json, const char** names, double* values, int capacity) {
  (void)data_source;
  (void)solution_str;
  (void)ground_truth;
  (void)extra_info_json;
  (void)capacity;
  names[0] = "format";
  values[0] = 1.0;
  return 1;
}

/* "score" twice (a Python dict cannot hold a key twice). */
int score_twice_named(const char* data_source, const char* solution_str, const char* ground_truth,
                      const char* extra_info_json, const char** names, double* values,
                      int capacity) {
  (void)data_source;
  (void)solution_str;
  (void)ground_truth;
  (void)extra_info_json;
  (void)capacity;
  names[0] = "score";
  values[0] = 1.0;
  names[1] = "score";
  values[1] = 2.0;
  return 2;
}

/* A failure reported by a negative count. */
int fails_named(const char* data_source, const char* solution_str, const char* ground_truth,
                const char* extra_info_json, const char** names, double* values, int capacity) {
  (void)data_source;
  (void)solution_str;
  (void)ground_truth;
  (void)extra_info_json;
  (void)names;
  (void)values;
  (void)capacity;
  return -1;
}

/* "bonus" only for responses holding "x": rows disagree on their names. */
int uneven_named(const char* data_source, const char* solution_str, const char* ground_truth,
                 const char* extra_info_json, const char** names, double* values, int capacity) {
  (void)data_source;
  (void)ground_truth;
  (void)extra_info_json;
  (void)capacity;
  names[0] = "score";
  values[0] = 1.0;
  if (strchr(solution_str, 'x') == NULL) return 1;
  names[1] = "bonus";
  values[1] = 2.0;
  return 2;
}
