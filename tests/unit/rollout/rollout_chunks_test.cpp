// The engine with rollout.max_num_batched_tokens below the prompts' lengths (chunked prefill: a
// prompt's pieces over several steps, beside other rows' decodes) and with prompts whose leading
// blocks equal an earlier, finished prompt's (prefix-cache hits: those blocks' keys and values
// reused, the rest prefilled after them): every row still equals greedy decoding by full
// recomputation (fp32, CPU). Qwen3.5 (linear-attention layers) continues each piece from its
// state slot's conv window and recurrent state, and reuses no prefix (its slots keep no per-block
// history), with the same outputs.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "rollout_test_util.h"
#include "verlpp/rollout/engine.h"

namespace verlpp::rollout {
namespace {

constexpr int64_t kPad = 0;
constexpr int64_t kR = 6;

// Prompts of 37, 21 and 18 tokens; the second and third repeat the first's first 16 and 17.
std::vector<std::vector<int64_t>> prompts_sharing_a_block() {
  std::vector<int64_t> a;
  for (int64_t i = 0; i < 37; ++i) a.push_back((i * 37 + 11) % 250 + 1);
  std::vector<int64_t> b(a.begin(), a.begin() + 16);
  b.insert(b.end(), {7, 99, 123, 5, 42});
  std::vector<int64_t> c(a.begin(), a.begin() + 17);
  c.push_back(201);
  return {a, b, c};
}

SamplingParams greedy() { return testing::greedy_params(kR, kPad); }

bool has_linear_attention(const model::CausalLM& m) {
  for (const model::LayerStateSpec& spec : m.generation_state()) {
    if (spec.kind == model::LayerStateKind::linear_attention) return true;
  }
  return false;
}

void expect_recomputation(const model::CausalLM& m, const std::vector<std::vector<int64_t>>& p,
                          const data::Batch& out) {
  for (size_t b = 0; b < p.size(); ++b) {
    EXPECT_EQ(testing::row(out.tensor("responses"), static_cast<int64_t>(b)),
              testing::greedy_by_recomputation(m, p[b], kR))
        << "row " << b;
  }
}

class RolloutChunks : public ::testing::TestWithParam<std::string> {};

TEST_P(RolloutChunks, ChunkedPrefillDecodesAsIfWhole) {
  const model::CausalLM m = testing::load_fp32(GetParam());
  const auto p = prompts_sharing_a_block();
  SamplingParams params = greedy();
  params.max_num_batched_tokens = 5;
  params.enable_prefix_caching = false;
  // All rows at once, then two at a time: a row admitted when another finishes takes its state
  // slot (Qwen3.5) and starts fresh beside rows continuing their prompts' pieces.
  for (const int64_t max_num_seqs : {0, 2}) {
    params.max_num_seqs = max_num_seqs;
    EngineStats stats;
    const data::Batch out =
        generate_with_engine(m, testing::left_padded(p, 37, kPad), params, 0, 0, &stats);
    expect_recomputation(m, p, out);
    EXPECT_EQ(stats.max_step_tokens, 5) << max_num_seqs;
    EXPECT_EQ(stats.prefix_cache_hit_tokens, 0);
  }
}

TEST_P(RolloutChunks, PrefixCacheHitsDecodeAsIfAlone) {
  const model::CausalLM m = testing::load_fp32(GetParam());
  const auto p = prompts_sharing_a_block();
  SamplingParams params = greedy();
  params.max_num_seqs = 1;  // each prompt runs after the one before has finished
  EngineStats stats;
  const data::Batch out =
      generate_with_engine(m, testing::left_padded(p, 37, kPad), params, 0, 0, &stats);
  expect_recomputation(m, p, out);
  // The second and third prompts each find the first's first block (16 tokens).
  EXPECT_EQ(stats.prefix_cache_hit_tokens, has_linear_attention(m) ? 0 : 32);
  // With rollout.enable_prefix_caching=false nothing is reused, and the log-probs agree within
  // fp32 rounding (the reused keys were computed in another batch).
  params.enable_prefix_caching = false;
  EngineStats alone;
  const data::Batch unshared =
      generate_with_engine(m, testing::left_padded(p, 37, kPad), params, 0, 0, &alone);
  EXPECT_EQ(alone.prefix_cache_hit_tokens, 0);
  EXPECT_TRUE(at::equal(unshared.tensor("responses"), out.tensor("responses")));
  EXPECT_LT((unshared.tensor("rollout_log_probs") - out.tensor("rollout_log_probs"))
                .abs()
                .max()
                .item<double>(),
            1e-5);
}

// A Qwen3.5 whose every layer is linear attention holds no KV blocks: its requests' block tables
// are empty and the engine still decodes as recomputation does (a break-test's all-linear model
// crashed reading the empty table, report bt10).
TEST(RolloutChunksNoAttention, AllLinearAttentionLayersDecodeAsIfWhole) {
  model::ModelConfig c = testing::load_fp32("qwen3_5").config();
  for (model::LayerType& type : c.layer_types) type = model::LayerType::linear_attention;
  const model::CausalLM m = model::CausalLM::random_init(c, 3, 0.2, at::kFloat, at::kCPU);
  const auto p = prompts_sharing_a_block();
  SamplingParams params = greedy();
  params.max_num_batched_tokens = 5;
  const data::Batch out = generate_with_engine(m, testing::left_padded(p, 37, kPad), params, 0, 0);
  expect_recomputation(m, p, out);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RolloutChunks,
                         ::testing::Values("qwen3_tied", "llama3", "qwen3_moe", "qwen3_5",
                                           "qwen3_5_moe"));

}  // namespace
}  // namespace verlpp::rollout
