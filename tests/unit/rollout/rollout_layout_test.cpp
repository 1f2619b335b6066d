// generate_sequences on the fixture checkpoints (fp32, CPU): greedy output equals greedy decoding
// by full recomputation without a cache; the batch layout (left-padded prompts, right-padded
// responses, masks, positions) and the stop rules (eos mid-batch, several eos ids, ignore_eos,
// max_response_length) follow from that reference by hand.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "rollout_test_util.h"
#include "verlpp/core/error.h"
#include "verlpp/rollout/rollout.h"

namespace verlpp::rollout {
namespace {

using testing::row;

const std::vector<std::vector<int64_t>> kPrompts = {
    {11, 42, 7}, {5, 99, 23, 64, 8, 150, 3}, {200, 17, 81, 9, 33}, {77}};
constexpr int64_t kP = 9;    // prompt_length (>= the longest prompt: left padding in every row)
constexpr int64_t kPad = 0;  // pad id

SamplingParams greedy(int64_t R) { return testing::greedy_params(R, kPad); }

// Each row's reference continuation cut after the first token in `eos` (kept), then padded.
std::vector<int64_t> cut_at_eos(std::vector<int64_t> tokens, const std::vector<int32_t>& eos,
                                int64_t* length) {
  auto it = std::find_if(tokens.begin(), tokens.end(), [&](int64_t t) {
    return std::find(eos.begin(), eos.end(), static_cast<int32_t>(t)) != eos.end();
  });
  if (it != tokens.end()) std::fill(it + 1, tokens.end(), kPad);
  *length = it == tokens.end() ? static_cast<int64_t>(tokens.size()) : (it - tokens.begin()) + 1;
  return tokens;
}

class RolloutGreedy : public ::testing::TestWithParam<std::string> {};

TEST_P(RolloutGreedy, MatchesRecomputationAndLaysOutTheBatch) {
  const model::CausalLM m = testing::load_fp32(GetParam());
  const int64_t R = 6;
  const data::Batch prompts = testing::left_padded(kPrompts, kP, kPad);
  const data::Batch out = generate_sequences(m, prompts, greedy(R), 0);
  const int64_t B = static_cast<int64_t>(kPrompts.size());
  ASSERT_EQ(out.tensor("responses").sizes(), (std::vector<int64_t>{B, R}));
  EXPECT_TRUE(out.tensor("prompts").equal(prompts.tensor("input_ids")));
  for (int64_t b = 0; b < B; ++b) {
    const auto& prompt = kPrompts[static_cast<size_t>(b)];
    const auto n = static_cast<int64_t>(prompt.size());
    const std::vector<int64_t> want = testing::greedy_by_recomputation(m, prompt, R);
    EXPECT_EQ(row(out.tensor("responses"), b), want) << "row " << b;
    EXPECT_EQ(row(out.tensor("response_mask"), b), std::vector<int64_t>(R, 1));
    std::vector<int64_t> ids(kP - n, kPad), mask(kP - n, 0), pos(kP - n, 0);
    for (int64_t i = 0; i < n; ++i) {
      ids.push_back(prompt[static_cast<size_t>(i)]);
      mask.push_back(1);
      pos.push_back(i);
    }
    for (int64_t i = 0; i < R; ++i) {
      ids.push_back(want[static_cast<size_t>(i)]);
      mask.push_back(1);
      pos.push_back(n + i);
    }
    EXPECT_EQ(row(out.tensor("input_ids"), b), ids);
    EXPECT_EQ(row(out.tensor("attention_mask"), b), mask);
    EXPECT_EQ(row(out.tensor("position_ids"), b), pos);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RolloutGreedy,
                         ::testing::Values("qwen2", "qwen3_tied", "qwen3_sharded", "llama3"));

// Rows repeating a prompt (as rollout.n makes them) are prefilled once and start from a copy of
// that prefill's state (the KV cache; the conv windows and recurrent states of Qwen3.5's linear
// layers): every row's greedy output still equals greedy decoding by full recomputation, and a
// repeated row's log-probs equal its first row's.
class RolloutSharedPrompts : public ::testing::TestWithParam<std::string> {};

TEST_P(RolloutSharedPrompts, RepeatedPromptsDecodeAsIfAlone) {
  const model::CausalLM m = testing::load_fp32(GetParam());
  const int64_t R = 5;
  const std::vector<std::vector<int64_t>> prompts = {kPrompts[1], kPrompts[0], kPrompts[1],
                                                     kPrompts[1], kPrompts[0], kPrompts[3]};
  const data::Batch out =
      generate_sequences(m, testing::left_padded(prompts, kP, kPad), greedy(R), 0);
  for (size_t b = 0; b < prompts.size(); ++b) {
    EXPECT_EQ(row(out.tensor("responses"), static_cast<int64_t>(b)),
              testing::greedy_by_recomputation(m, prompts[b], R))
        << "row " << b;
  }
  const at::Tensor lp = out.tensor("rollout_log_probs");
  for (const auto& [repeat, first] :
       std::vector<std::pair<int64_t, int64_t>>{{2, 0}, {3, 0}, {4, 1}}) {
    EXPECT_TRUE(at::allclose(lp[repeat], lp[first], 0.0, 1e-6)) << "row " << repeat;
  }
  // rollout.enable_prefix_caching=false prefills every row: the same tokens, and log-probs within
  // fp32 rounding (the prefill's products run over another batch: 2.4e-6 seen on Qwen3.5).
  SamplingParams alone = greedy(R);
  alone.enable_prefix_caching = false;
  const data::Batch unshared =
      generate_sequences(m, testing::left_padded(prompts, kP, kPad), alone, 0);
  EXPECT_TRUE(at::equal(unshared.tensor("responses"), out.tensor("responses")));
  EXPECT_LT((unshared.tensor("rollout_log_probs") - lp).abs().max().item<double>(), 1e-5);
}

// A cache too small for the batch: the four prompts (3, 7, 5 and 1 tokens) with 30-token
// responses need 3, 3, 3 and 2 blocks of 16, 11 in all; with 6 blocks all four are admitted
// (a block each) and preempted in turn as they grow, then recomputed. Every row still equals
// greedy decoding by full recomputation, as with room to spare.
TEST_P(RolloutSharedPrompts, TooSmallACachePreemptsAndRecomputes) {
  const model::CausalLM m = testing::load_fp32(GetParam());
  const int64_t R = 30;
  SamplingParams tight = greedy(R);
  tight.kv_cache_blocks = 6;
  const data::Batch out = generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), tight, 0);
  for (size_t b = 0; b < kPrompts.size(); ++b) {
    EXPECT_EQ(row(out.tensor("responses"), static_cast<int64_t>(b)),
              testing::greedy_by_recomputation(m, kPrompts[b], R))
        << "row " << b;
  }
  SamplingParams starved = greedy(R);
  starved.kv_cache_blocks = 2;  // the 7-token prompt alone needs 3
  EXPECT_THROW(generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), starved, 0), Error);
  // Prompt + response beyond the model's positions (verl's rollout asserts it too), or a cache
  // larger than the machine: an error naming response_length before any allocation.
  const int64_t positions = m.config().max_position_embeddings;
  int64_t longest = 0;
  for (const auto& p : kPrompts)
    longest = std::max<int64_t>(longest, static_cast<int64_t>(p.size()));
  for (const int64_t R_bad : {positions - longest + 1, int64_t{1} << 40}) {
    try {
      generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), greedy(R_bad), 0);
      FAIL() << "expected an error for response_length " << R_bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("response_length"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("max_position_embeddings"), std::string::npos)
          << e.what();
    }
  }
  // The longest prompt plus response_length exactly at the limit is allowed.
  EXPECT_NO_THROW(
      generate_sequences(m, testing::left_padded({{4, 8}}, 2, kPad), greedy(positions - 2), 0));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RolloutSharedPrompts,
                         ::testing::Values("qwen3_tied", "qwen3_5", "qwen3_5_moe"));

class RolloutStops : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& p : kPrompts) reference.push_back(testing::greedy_by_recomputation(m, p, R));
  }
  // Checks each row against the reference cut at `eos`.
  void expect_cut(const data::Batch& out, const std::vector<int32_t>& eos) {
    for (size_t b = 0; b < kPrompts.size(); ++b) {
      int64_t length = 0;
      const std::vector<int64_t> want = cut_at_eos(reference[b], eos, &length);
      std::vector<int64_t> mask(R, 0);
      std::fill(mask.begin(), mask.begin() + length, 1);
      const auto r = static_cast<int64_t>(b);
      EXPECT_EQ(row(out.tensor("responses"), r), want) << "row " << b;
      EXPECT_EQ(row(out.tensor("response_mask"), r), mask) << "row " << b;
      EXPECT_EQ(row(out.tensor("attention_mask"), r).back(), mask.back());
      const at::Tensor lp = out.tensor("rollout_log_probs")[r];
      EXPECT_EQ(lp.narrow(0, length, R - length).abs().sum().item<float>(), 0.0f);
      EXPECT_LT(lp.narrow(0, 0, length).max().item<float>(), 0.0f);
    }
  }

  const model::CausalLM m = testing::load_fp32("qwen2");
  const int64_t R = 7;
  std::vector<std::vector<int64_t>> reference;
};

TEST_F(RolloutStops, EosMidBatchFinishesThatRowEarly) {
  const auto eos = static_cast<int32_t>(reference[0][2]);
  SamplingParams p = greedy(R);
  p.eos_token_ids = {eos};
  const data::Batch out = generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), p, 0);
  expect_cut(out, p.eos_token_ids);
  EXPECT_LT(row(out.tensor("response_mask"), 0)[3], 1);  // row 0 stopped after step 2
}

TEST_F(RolloutStops, AnyOfSeveralEosIdsStops) {
  SamplingParams p = greedy(R);
  p.eos_token_ids = {static_cast<int32_t>(reference[1][1]), static_cast<int32_t>(reference[2][4])};
  const data::Batch out = generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), p, 0);
  expect_cut(out, p.eos_token_ids);
}

TEST_F(RolloutStops, FinishedRowsKeptInTheDecodeBatchAreMasked) {
  SamplingParams p = greedy(R);
  p.eos_token_ids = {static_cast<int32_t>(reference[0][1]), static_cast<int32_t>(reference[2][2])};
  p.compaction_interval = 4;  // rows ending at steps 1..3 stay in the batch until step 4
  const data::Batch out = generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), p, 0);
  expect_cut(out, p.eos_token_ids);
}

TEST_F(RolloutStops, IgnoreEosRunsToMaxResponseLength) {
  SamplingParams p = greedy(R);
  p.eos_token_ids = {static_cast<int32_t>(reference[0][0]), static_cast<int32_t>(reference[3][1])};
  p.ignore_eos = true;
  const data::Batch out = generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), p, 0);
  expect_cut(out, {});
}

// rollout.max_model_len as vLLM applies it: a row stops once prompt + response reach it (after
// one token at least), on the engine and in static batches; a longer prompt is an error naming
// its row. Prompts of 3, 7, 5 and 1 tokens, response_length 7.
TEST_F(RolloutStops, MaxModelLenCapsResponsesAndRefusesLongerPrompts) {
  const std::vector<std::pair<int64_t, std::vector<int64_t>>> cases = {
      {10, {7, 3, 5, 7}}, {7, {4, 1, 2, 6}}, {100, {7, 7, 7, 7}}};
  for (const auto& [max_model_len, lengths] : cases) {
    for (const bool static_batches : {false, true}) {
      SamplingParams p = greedy(R);
      p.max_model_len = max_model_len;
      p.static_batches = static_batches;
      const data::Batch out = generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), p, 0);
      for (size_t b = 0; b < kPrompts.size(); ++b) {
        const int64_t n = lengths[b];
        std::vector<int64_t> want(reference[b].begin(), reference[b].begin() + n);
        want.resize(static_cast<size_t>(R), kPad);
        std::vector<int64_t> mask(static_cast<size_t>(R), 0);
        std::fill(mask.begin(), mask.begin() + n, 1);
        const std::string what = "max_model_len " + std::to_string(max_model_len) + " row " +
                                 std::to_string(b) + (static_batches ? " static" : " engine");
        EXPECT_EQ(row(out.tensor("responses"), static_cast<int64_t>(b)), want) << what;
        EXPECT_EQ(row(out.tensor("response_mask"), static_cast<int64_t>(b)), mask) << what;
      }
    }
  }
  SamplingParams p = greedy(R);
  p.max_model_len = 6;
  for (const int64_t first_row : {0, 10}) {  // a data-parallel rank's rows start at first_row
    try {
      generate_sequences(m, testing::left_padded(kPrompts, kP, kPad), p, 0, first_row);
      FAIL() << "a 7-token prompt passed max_model_len 6";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the prompt of row " + std::to_string(first_row + 1) +
                                           " of the batch has 7 tokens, more than max_model_len 6"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Rollout, NonTensorFieldsAndMetaInfoAreCarried) {
  const model::CausalLM m = testing::load_fp32("qwen3_tied");
  data::Batch prompts = testing::left_padded({{1, 2}, {3}}, 3, kPad);
  prompts.set_non_tensor("data_source", {"a", "b"});
  prompts.meta_info["step"] = 4;
  SamplingParams p = greedy(2);
  p.calculate_log_probs = false;
  const data::Batch out = generate_sequences(m, prompts, p, 0);
  EXPECT_EQ(out.non_tensor("data_source")[1], "b");
  EXPECT_EQ(out.meta_info["step"], 4);
  EXPECT_FALSE(out.has_tensor("rollout_log_probs"));
}

TEST(Rollout, SamplingIsDeterministicForASeed) {
  const model::CausalLM m = testing::load_fp32("llama3");
  const data::Batch prompts = testing::left_padded(kPrompts, kP, kPad);
  SamplingParams p;
  p.max_response_length = 8;
  const at::Tensor a = generate_sequences(m, prompts, p, 3).tensor("responses");
  EXPECT_TRUE(a.equal(generate_sequences(m, prompts, p, 3).tensor("responses")));
  EXPECT_FALSE(a.equal(generate_sequences(m, prompts, p, 4).tensor("responses")));
}

// A model with a NaN weight (a break-test's checkpoint trained with weight_decay=nan) makes every
// logit NaN: sampled and greedy rollouts both stop with an error instead of an out-of-range token
// or garbage.
TEST(Rollout, NonFiniteWeightsAreAnError) {
  const model::CausalLM m = testing::load_fp32("llama3");
  c10::NoGradGuard no_grad;
  m.named_parameters().front().second.fill_(std::numeric_limits<float>::quiet_NaN());
  const data::Batch prompts = testing::left_padded(kPrompts, kP, kPad);
  for (const bool sample : {true, false}) {
    SamplingParams p;
    p.max_response_length = 4;
    p.do_sample = sample;
    try {
      generate_sequences(m, prompts, p, 3);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("NaN or infinite"), std::string::npos) << e.what();
    }
  }
}

// Sampling is keyed by row: max_num_seqs 3 over 4 rows (two chunks) gives the batch generated at
// once, and so does generating the rows in two pieces with first_row (data-parallel slices).
TEST(Rollout, ChunksAndSlicesSampleAsTheWholeBatch) {
  const model::CausalLM m = testing::load_fp32("llama3");
  const data::Batch prompts = testing::left_padded(kPrompts, kP, kPad);
  SamplingParams p;
  p.max_response_length = 8;
  const data::Batch whole = generate_sequences(m, prompts, p, 5);
  p.max_num_seqs = 3;
  const data::Batch chunked = generate_sequences(m, prompts, p, 5);
  p.max_num_seqs = 0;
  const data::Batch first = generate_sequences(m, prompts.slice(0, 2), p, 5, 0);
  const data::Batch second = generate_sequences(m, prompts.slice(2, 4), p, 5, 2);
  for (const char* key : {"responses", "response_mask", "input_ids"}) {
    EXPECT_TRUE(chunked.tensor(key).equal(whole.tensor(key))) << key;
    EXPECT_TRUE(at::cat({first.tensor(key), second.tensor(key)}).equal(whole.tensor(key))) << key;
  }
  for (const data::Batch* b : {&chunked, &first, &second}) {
    const std::int64_t start = b == &second ? 2 : 0;
    EXPECT_TRUE(
        b->tensor("rollout_log_probs")
            .allclose(whole.tensor("rollout_log_probs").narrow(0, start, b->size()), 0, 1e-5));
  }
}

TEST(Rollout, BadPromptsAreErrors) {
  const model::CausalLM m = testing::load_fp32("qwen2");
  data::Batch missing;
  missing.set_tensor("input_ids", at::ones({1, 2}, at::kLong));
  EXPECT_THROW(generate_sequences(m, missing, greedy(2), 0), Error);
  data::Batch empty = testing::left_padded({{1, 2}}, 2, kPad);
  empty.set_tensor("attention_mask", at::zeros({1, 2}, at::kLong));
  EXPECT_THROW(generate_sequences(m, empty, greedy(2), 0), Error);
  EXPECT_THROW(generate_sequences(m, testing::left_padded({{1}}, 2, kPad), greedy(0), 0), Error);
  EXPECT_THROW(generate_sequences(m, testing::left_padded({{1, 384}}, 2, kPad), greedy(2), 0),
               Error);  // qwen2 fixture: vocabulary of 384
}

}  // namespace
}  // namespace verlpp::rollout
