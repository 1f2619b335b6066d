/* verlpp custom reward C ABI, version 1.
 *
 * A custom reward is a function in a shared library that verlpp loads with dlopen, so rewards can
 * be written in C or C++ without rebuilding verlpp. It is selected as in verl:
 *   reward.custom_reward_function.path=/abs/path/libmyreward.so
 *   reward.custom_reward_function.name=compute_score        (verl's default name)
 * or `verlpp reward --custom-path ... --custom-name ...`.
 *
 * The library exports, with C linkage (extern "C" in C++), a function of this type under `name`:
 *
 *   double compute_score(const char* data_source, const char* solution_str,
 *                        const char* ground_truth, const char* extra_info_json);
 *
 * Arguments are NUL-terminated UTF-8 strings owned by verlpp and valid only during the call:
 * data_source (row's data_source), solution_str (decoded response, special tokens skipped),
 * ground_truth (row's reward_model.ground_truth) and extra_info_json (row's extra_info as a JSON
 * object; "{}" when absent). These are verl's compute_score(data_source, solution_str,
 * ground_truth, extra_info) arguments. The return value is the reward; returning NaN reports a
 * failure, which verlpp turns into an error naming the function, the library and the row; so
 * does +-inf, and a C++ exception thrown out of a library built with the same C++ runtime. A
 * library that crashes (a signal) ends the run; the checkpoints already written stay intact (each
 * is complete on disk before it counts).
 *
 * Several named rewards (verl's compute_score returning a dict, e.g. {"score": 1.0, "format": 0.5},
 * whose entries become reward_extra_info, as adv_estimator gdpo needs): export instead, or as
 * well, under `name` followed by "_named":
 *
 *   int compute_score_named(const char* data_source, const char* solution_str,
 *                           const char* ground_truth, const char* extra_info_json,
 *                           const char** names, double* values, int capacity);
 *
 * It writes up to `capacity` (verlpp passes VERLPP_REWARD_MAX_NAMED) name/value pairs and returns
 * how many it wrote, or a negative number for a failure. One of the names must be "score" (the
 * reward); every value must be finite. The name strings are the library's and need only stay
 * valid until the call returns (verlpp copies them). When both symbols exist verlpp calls only the
 * named one.
 *
 * The library may also export `int verlpp_reward_abi_version(void)`; when present it must return
 * VERLPP_REWARD_ABI_VERSION. verlpp calls the function from one thread at a time.
 */
#ifndef VERLPP_REWARD_ABI_H
#define VERLPP_REWARD_ABI_H

#define VERLPP_REWARD_ABI_VERSION 1
#define VERLPP_REWARD_MAX_NAMED 64

#ifdef __cplusplus
extern "C" {
#endif

typedef double (*verlpp_compute_score_fn)(const char* data_source, const char* solution_str,
                                          const char* ground_truth, const char* extra_info_json);
typedef int (*verlpp_compute_score_named_fn)(const char* data_source, const char* solution_str,
                                             const char* ground_truth, const char* extra_info_json,
                                             const char** names, double* values, int capacity);
typedef int (*verlpp_reward_abi_version_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* VERLPP_REWARD_ABI_H */
