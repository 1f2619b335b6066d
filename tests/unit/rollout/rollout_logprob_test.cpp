// rollout_log_probs against the trainer's forward log-probs of the same tokens: forward_padded on
// the returned input_ids/attention_mask/position_ids, then model::chunked_logprob_entropy at the
// sampling temperature (what the actor's old_log_prob recomputes). fp32 CPU: mean |diff| <= 1e-5.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <iostream>

#include "rollout_test_util.h"
#include "verlpp/model/logprob.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::rollout {
namespace {

// Trainer-side log-probs [B, R] of the responses in `out`.
at::Tensor forward_logprobs(const model::CausalLM& m, const data::Batch& out, double temperature) {
  c10::AutoGradMode no_grad(false);
  const at::Tensor ids = out.tensor("input_ids");
  const int64_t B = ids.size(0);
  const int64_t R = out.tensor("responses").size(1);
  const int64_t P = ids.size(1) - R;
  const at::Tensor hidden =
      m.forward_padded(ids, out.tensor("attention_mask"), out.tensor("position_ids"));
  const at::Tensor h = hidden.narrow(1, P - 1, R).reshape({B * R, -1});
  const auto r = model::chunked_logprob_entropy(
      h, m.lm_head_weight(), out.tensor("responses").reshape({B * R}), temperature, false, 16);
  return r.logprobs.view({B, R});
}

class RolloutLogProbs : public ::testing::TestWithParam<std::string> {};

TEST_P(RolloutLogProbs, AgreeWithTrainerForwardFp32) {
  const model::CausalLM m = testing::load_fp32(GetParam());
  const data::Batch prompts = testing::left_padded(
      {{3, 14, 15, 92, 65}, {35, 89}, {79, 32, 38, 46, 26, 43, 38, 32}, {27, 18, 28}}, 10, 0);
  SamplingParams p;
  p.temperature = 0.8;
  p.top_k = 40;
  p.top_p = 0.95;
  p.max_response_length = 12;
  p.eos_token_ids = {7, 8, 9, 10, 11, 12};  // some rows stop early
  const data::Batch out = generate_sequences(m, prompts, p, 11);
  const at::Tensor mask = out.tensor("response_mask").to(at::kFloat);
  const at::Tensor diff =
      (out.tensor("rollout_log_probs") - forward_logprobs(m, out, p.temperature)).abs() * mask;
  const double mean = (diff.sum() / mask.sum()).item<double>();
  std::cout << GetParam() << ": fp32 mean |rollout - forward| log-prob = " << mean
            << ", max = " << diff.max().item<double>() << " over " << mask.sum().item<double>()
            << " tokens\n";
  EXPECT_LE(mean, 1e-5);
  EXPECT_GT(mask.sum().item<double>(), 4.0);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RolloutLogProbs,
                         ::testing::Values("qwen2", "qwen3_tied", "qwen3_sharded", "llama3"));

}  // namespace
}  // namespace verlpp::rollout
