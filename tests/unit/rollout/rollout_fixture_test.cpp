// Greedy generate_sequences (fp32 CPU, with and without the KV cache) against transformers'
// greedy `generate` on the model fixtures: dense and Qwen3-MoE (tests/fixtures/rollout/greedy.json,
// made by tools/make_rollout_fixture.py), Qwen3.5 and Qwen3.5-MoE with prompts up to 130 tokens
// (greedy_qwen3_5.json, made by tools/make_qwen3_5_fixtures.py).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "rollout_test_util.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::rollout {
namespace {

nlohmann::json read_fixture(const std::string& file) {
  std::ifstream in(std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/rollout/" + file);
  return nlohmann::json::parse(in);
}

// The fixture file holding `model`'s greedy generation.
const nlohmann::json& fixture(const std::string& model) {
  static const nlohmann::json greedy = read_fixture("greedy.json");
  static const nlohmann::json qwen3_5 = read_fixture("greedy_qwen3_5.json");
  return model.starts_with("qwen3_5") ? qwen3_5 : greedy;
}

class RolloutTransformers : public ::testing::TestWithParam<std::string> {};

TEST_P(RolloutTransformers, GreedyTokenIdenticalToGenerate) {
  const auto& f = fixture(GetParam());
  const auto& entry = f.at("models").at(GetParam());
  const auto prompts = entry.at("prompts").get<std::vector<std::vector<int64_t>>>();
  const auto want = entry.at("responses").get<std::vector<std::vector<int64_t>>>();
  const auto want_lp = entry.at("logprobs").get<std::vector<std::vector<double>>>();
  int64_t P = 0;
  for (const auto& p : prompts) P = std::max<int64_t>(P, static_cast<int64_t>(p.size()));
  SamplingParams params;
  params.do_sample = false;
  params.temperature = 1.0;  // greedy, log-probs at temperature 1, as the fixture's
  params.max_response_length = f.at("max_new_tokens").get<int64_t>();
  params.pad_token_id = f.at("pad_token_id").get<int32_t>();
  const model::CausalLM m = testing::load_fp32(GetParam());
  // Through the KV cache (whole prefills, then chunked prefills of at most 7 tokens a step:
  // rollout.max_num_batched_tokens=7), and by recomputation without it.
  for (const auto& [kv_cache, budget] :
       std::vector<std::pair<bool, int64_t>>{{true, 0}, {true, 7}, {false, 0}}) {
    params.use_kv_cache = kv_cache;
    params.max_num_batched_tokens = budget;
    const data::Batch out =
        generate_sequences(m, testing::left_padded(prompts, P, params.pad_token_id), params, 0);
    double worst = 0.0;
    for (size_t b = 0; b < prompts.size(); ++b) {
      const auto r = static_cast<int64_t>(b);
      EXPECT_EQ(testing::row(out.tensor("responses"), r), want[b])
          << "prompt " << b << (kv_cache ? " with" : " without") << " the KV cache, budget "
          << budget;
      const at::Tensor lp = out.tensor("rollout_log_probs")[r];
      for (size_t i = 0; i < want_lp[b].size(); ++i) {
        worst =
            std::max(worst, std::abs(lp[static_cast<int64_t>(i)].item<double>() - want_lp[b][i]));
      }
    }
    EXPECT_LE(worst, 1e-4) << "largest |log-prob - transformers|"
                           << (kv_cache ? " with" : " without") << " the KV cache, budget "
                           << budget;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RolloutTransformers,
                         ::testing::Values("qwen2", "qwen3_tied", "qwen3_sharded", "llama3",
                                           "qwen3_moe", "qwen3_moe_sparse", "qwen3_5",
                                           "qwen3_5_moe"));

}  // namespace
}  // namespace verlpp::rollout
