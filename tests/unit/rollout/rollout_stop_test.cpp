// A generation call with a StopCheck (rollout/generation_stop.h), through the engine and the
// static batches: asked before every decode step, it abandons the call with GenerationStopped as
// soon as it returns true (asked no more after that); one that never returns true changes nothing.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "rollout_test_util.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::rollout {
namespace {

constexpr int64_t kPad = 0;
constexpr int64_t kR = 6;

data::Batch prompts() {
  return testing::left_padded({{11, 12, 13, 14}, {21, 22}, {31, 32, 33}}, 4, kPad);
}

SamplingParams params(bool static_batches) {
  SamplingParams p = testing::greedy_params(kR, kPad);
  p.ignore_eos = true;  // every row runs all kR tokens, so every call has the same steps
  p.static_batches = static_batches;
  return p;
}

class RolloutStop : public ::testing::TestWithParam<bool> {};

TEST_P(RolloutStop, AbandonsTheCallOnceTheCheckSaysSo) {
  const model::CausalLM m = testing::load_fp32("qwen3_tied");
  int asked = 0;
  const StopCheck stop_at_third = [&asked] { return ++asked == 3; };
  EXPECT_THROW(generate_sequences(m, prompts(), params(GetParam()), 7, 0, stop_at_third),
               GenerationStopped);
  EXPECT_EQ(asked, 3);
}

TEST_P(RolloutStop, ACheckThatNeverStopsChangesNothing) {
  const model::CausalLM m = testing::load_fp32("qwen3_tied");
  int asked = 0;
  const StopCheck never = [&asked] {
    ++asked;
    return false;
  };
  const data::Batch with = generate_sequences(m, prompts(), params(GetParam()), 7, 0, never);
  const data::Batch without = generate_sequences(m, prompts(), params(GetParam()), 7);
  EXPECT_TRUE(at::equal(with.tensor("responses"), without.tensor("responses")));
  EXPECT_TRUE(at::equal(with.tensor("rollout_log_probs"), without.tensor("rollout_log_probs")));
  // Once per decode step: kR - 1 after the prefill's token (static batches), one more for the
  // engine's first step, which prefills.
  EXPECT_EQ(asked, GetParam() ? kR - 1 : kR);
}

INSTANTIATE_TEST_SUITE_P(EngineAndStaticBatches, RolloutStop, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "static_batches" : "engine";
                         });

}  // namespace
}  // namespace verlpp::rollout
