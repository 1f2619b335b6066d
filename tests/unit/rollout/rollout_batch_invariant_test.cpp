// Batch-invariant mode (VLLM_BATCH_INVARIANT=1, model/batch_invariant.h) on the CPU fixtures in
// fp32 and bf16: the rollout's log-probs of its samples equal, bit for bit, the trainer's
// log-probs of the same tokens (model::chunked_logprob_entropy after forward_padded, as the actor's
// old_log_prob pass, and after forward_packed, verl's use_remove_padding), whatever the engine
// did: all rows at once, two rows at a time, chunked prefill, no prefix sharing, static batches.
// The runs also sample the same tokens. Backward in the mode gives the usual gradients.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "rollout_test_util.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/model/batch_invariant.h"
#include "verlpp/model/logprob.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::rollout {
namespace {

struct InvariantMode {
  InvariantMode() { model::set_batch_invariant(true); }
  ~InvariantMode() { model::set_batch_invariant(false); }
};

constexpr int64_t kR = 10;  // response_length
constexpr int64_t kP = 9;   // prompt_length

data::Batch prompts() {
  // Two prompts repeated (rollout.n = 2: prefix sharing) and two more.
  return testing::left_padded({{3, 14, 15, 92, 65, 35, 89},
                               {3, 14, 15, 92, 65, 35, 89},
                               {79, 32, 38},
                               {79, 32, 38},
                               {27, 18, 28, 18, 28, 45, 90, 45, 23},
                               {66}},
                              kP, 0);
}

SamplingParams sampling() {
  SamplingParams p;
  p.temperature = 0.9;
  p.max_response_length = kR;
  p.eos_token_ids = {7, 8, 9};  // some rows stop early
  return p;
}

// The engine set-ups whose results must not differ.
std::vector<std::pair<std::string, SamplingParams>> setups() {
  std::vector<std::pair<std::string, SamplingParams>> all;
  all.emplace_back("all rows at once", sampling());
  SamplingParams two = sampling();
  two.max_num_seqs = 2;
  two.enable_prefix_caching = false;
  all.emplace_back("two rows at a time, no prefix sharing", two);
  SamplingParams chunked = sampling();
  chunked.max_num_batched_tokens = 5;
  all.emplace_back("chunked prefill of 5 tokens a step", chunked);
  SamplingParams fixed = sampling();
  fixed.static_batches = true;
  fixed.max_num_seqs = 4;
  all.emplace_back("static batches of 4", fixed);
  return all;
}

// Trainer-side log-probs [B, R] from forward_padded of the returned batch.
at::Tensor padded_logprobs(const model::CausalLM& m, const data::Batch& out, double temperature) {
  const at::Tensor ids = out.tensor("input_ids");
  const int64_t B = ids.size(0), P = ids.size(1) - kR;
  const at::Tensor hidden =
      m.forward_padded(ids, out.tensor("attention_mask"), out.tensor("position_ids"));
  const at::Tensor h = hidden.narrow(1, P - 1, kR).reshape({B * kR, -1});
  return model::chunked_logprob_entropy(
             h, m.lm_head_weight(), out.tensor("responses").reshape({B * kR}), temperature, true, 7)
      .logprobs.view({B, kR});
}

// The same from forward_packed of each row's real tokens, rows packed in reverse order.
at::Tensor packed_logprobs(const model::CausalLM& m, const data::Batch& out, double temperature) {
  const at::Tensor ids = out.tensor("input_ids"), mask = out.tensor("attention_mask");
  const at::Tensor positions = out.tensor("position_ids");
  const int64_t B = ids.size(0), P = ids.size(1) - kR;
  std::vector<at::Tensor> id_parts, pos_parts;
  std::vector<int64_t> cu = {0}, predictor(static_cast<size_t>(B));
  for (int64_t b = B - 1; b >= 0; --b) {
    const at::Tensor real = mask[b].nonzero().squeeze(1);
    const int64_t prompt = mask[b].narrow(0, 0, P).sum().item<int64_t>();
    predictor[static_cast<size_t>(b)] = cu.back() + prompt - 1;
    id_parts.push_back(ids[b].index_select(0, real));
    pos_parts.push_back(positions[b].index_select(0, real));
    cu.push_back(cu.back() + real.numel());
  }
  const at::Tensor hidden =
      m.forward_packed(at::cat(id_parts), at::cat(pos_parts), at::tensor(cu, at::kLong));
  std::vector<int64_t> rows;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t n = out.tensor("response_mask")[b].sum().item<int64_t>();
    for (int64_t j = 0; j < kR; ++j)
      rows.push_back(predictor[static_cast<size_t>(b)] + std::min(j, n - 1));
  }
  const at::Tensor h = hidden.index_select(0, at::tensor(rows, at::kLong).to(hidden.device()));
  return model::chunked_logprob_entropy(h, m.lm_head_weight(),
                                        out.tensor("responses").reshape({B * kR}), temperature,
                                        false, 5)
      .logprobs.view({B, kR});
}

double max_masked_diff(const at::Tensor& a, const at::Tensor& b, const at::Tensor& mask) {
  return ((a - b).abs() * mask.to(at::kFloat)).max().item<double>();
}

// The rollout under every set-up against the trainer's passes and against the first set-up.
void expect_invariant(const model::CausalLM& m) {
  model::require_batch_invariant_support(m);
  std::optional<data::Batch> first;
  for (const auto& [setup, params] : setups()) {
    SCOPED_TRACE(setup);
    const data::Batch out = generate_sequences(m, prompts(), params, 5);
    const at::Tensor mask = out.tensor("response_mask");
    const at::Tensor rollout = out.tensor("rollout_log_probs");
    EXPECT_GT(mask.sum().item<int64_t>(), 20);
    EXPECT_EQ(max_masked_diff(rollout, padded_logprobs(m, out, 0.9), mask), 0.0);
    EXPECT_EQ(max_masked_diff(rollout, packed_logprobs(m, out, 0.9), mask), 0.0);
    if (!first) {
      first = out;
      continue;
    }
    EXPECT_TRUE(out.tensor("responses").equal(first->tensor("responses")));
    EXPECT_TRUE(rollout.equal(first->tensor("rollout_log_probs")));
  }
}

class RolloutBatchInvariant
    : public ::testing::TestWithParam<std::tuple<std::string, at::ScalarType>> {};

TEST_P(RolloutBatchInvariant, RolloutLogProbsEqualTheTrainersBitForBit) {
  const auto& [name, dtype] = GetParam();
  const InvariantMode on;
  const c10::AutoGradMode no_grad(false);
  expect_invariant(
      model::CausalLM::from_pretrained(testing::model_dir(name), dtype, at::Device(at::kCPU)));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RolloutBatchInvariant,
                         ::testing::Combine(::testing::Values("qwen2", "qwen3_tied", "llama3",
                                                              "qwen3_moe_sparse"),
                                            ::testing::Values(at::kFloat, at::kBFloat16)));

// The mode's attention needs each padded row's real tokens contiguous (verl's left-padded prompt
// and right-padded response are); a hole is an error naming the row, not a silent mask.
TEST(RolloutBatchInvariantErrors, PaddingBetweenRealTokensIsAnError) {
  const model::CausalLM m = testing::load_fp32("qwen3_tied");
  const InvariantMode on;
  const at::Tensor ids =
      at::tensor(std::vector<int64_t>{5, 6, 7, 8, 9, 10}, at::kLong).view({2, 3});
  const at::Tensor mask =
      at::tensor(std::vector<int64_t>{1, 1, 1, 1, 0, 1}, at::kLong).view({2, 3});
  try {
    m.forward_padded(ids, mask);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 has padding at position 1 between real tokens"),
              std::string::npos)
        << e.what();
  }
}

// CUDA in bf16 (kernels/invariant_ops.h's CUDA operations; skipped without a GPU): small random
// models of head_dim 128, which verlpp's decode kernel takes (the fixtures' 16 and 32 it does not).
model::ModelConfig small_config(model::Architecture architecture) {
  model::ModelConfig c;
  c.architecture = architecture;
  c.vocab_size = 2048;
  c.hidden_size = 512;
  c.intermediate_size = 1024;
  c.num_hidden_layers = 3;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 4;
  c.head_dim = 128;
  c.qk_norm = architecture != model::Architecture::qwen2;
  c.qkv_bias = architecture == model::Architecture::qwen2;
  c.rope_theta = 1e6;
  c.max_position_embeddings = 4096;
  if (architecture == model::Architecture::qwen3_moe) {
    c.moe.num_experts = 8;
    c.moe.num_experts_per_tok = 2;
    c.moe.moe_intermediate_size = 256;
    c.moe.norm_topk_prob = true;
    c.moe.mlp_only_layers = {0};
  }
  return c;
}

TEST(RolloutBatchInvariantGpu, RolloutLogProbsEqualTheTrainersBitForBit) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const InvariantMode on;
  const c10::AutoGradMode no_grad(false);
  for (const auto arch :
       {model::Architecture::qwen3, model::Architecture::qwen2, model::Architecture::qwen3_moe}) {
    SCOPED_TRACE(model::architecture_class(arch));
    expect_invariant(model::CausalLM::random_init(small_config(arch), 1, 0.05, at::kBFloat16,
                                                  at::Device(at::kCUDA, 0)));
  }
}

// Gradients through the mode's operations (their backward recomputes the usual formulas) equal
// the usual path's within fp32 rounding.
TEST(RolloutBatchInvariantGradients, MatchTheUsualPath) {
  model::CausalLM m = testing::load_fp32("qwen3_moe_sparse");
  const data::Batch batch = prompts();
  auto grads = [&](bool invariant) {
    model::set_batch_invariant(invariant);
    m.set_requires_grad(true);
    for (auto& [name, p] : m.named_parameters()) {
      if (p.grad().defined()) p.mutable_grad().zero_();
    }
    const at::Tensor hidden = m.forward_padded(
        batch.tensor("input_ids"), batch.tensor("attention_mask"), batch.tensor("position_ids"));
    const at::Tensor h = hidden.reshape({-1, hidden.size(-1)});
    const at::Tensor targets = batch.tensor("input_ids").roll(-1, 1).reshape({-1});
    const auto lp = model::chunked_logprob_entropy(h, m.lm_head_weight(), targets, 0.9, true, 8);
    (lp.logprobs.sum() + 0.1 * lp.entropy.sum()).backward();
    model::set_batch_invariant(false);
    std::vector<at::Tensor> out;
    for (const auto& [name, p] : m.named_parameters()) out.push_back(p.grad().clone());
    return out;
  };
  const std::vector<at::Tensor> usual = grads(false), invariant = grads(true);
  ASSERT_EQ(usual.size(), invariant.size());
  const auto names = m.named_parameters();
  for (size_t i = 0; i < usual.size(); ++i) {
    const double scale = usual[i].abs().max().item<double>() + 1e-6;
    EXPECT_LT((usual[i] - invariant[i]).abs().max().item<double>() / scale, 1e-4) << names[i].first;
  }
}

}  // namespace
}  // namespace verlpp::rollout
