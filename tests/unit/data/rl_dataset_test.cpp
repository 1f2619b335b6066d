// Prompt building with the Qwen3 tokenizer fixture. Expected ids are worked by hand from Qwen3's
// chat template (tokenizer_config.json) and ids looked up in its tokenizer.json vocabulary:
// <|endoftext|> 151643 (pad), <|im_start|> 151644, <|im_end|> 151645, "user" 872,
// "assistant" 77091, "\n" 198, "Hi" 13048, "Hello" 9707, " world" 1879.
#include "verlpp/data/rl_dataset.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

using testing::TempDir;
using Ids = std::vector<std::int64_t>;

const tokenizer::Tokenizer& qwen3() {
  static const auto tok = tokenizer::Tokenizer::from_directory(std::string(VERLPP_SOURCE_DIR) +
                                                               "/tests/fixtures/tokenizers/qwen3");
  return tok;
}

// "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
const Ids kHi = {151644, 872, 198, 13048, 151645, 198, 151644, 77091, 198};

const char* kRows =
    R"({"data_source": "openai/gsm8k", "prompt": [{"role": "user", "content": "Hi"}], "reward_model": {"style": "rule", "ground_truth": "1"}, "extra_info": {"index": 7}})"
    "\n"
    R"({"data_source": "openai/gsm8k", "prompt": [{"role": "user", "content": "Hello world"}], "reward_model": {"style": "rule", "ground_truth": "2"}})"
    "\n";

RLHFDatasetConfig config_for(const std::string& file, std::int64_t max_prompt_length) {
  RLHFDatasetConfig config;
  config.files = {file};
  config.max_prompt_length = max_prompt_length;
  return config;
}

Ids row_of(const at::Tensor& tensor, std::int64_t row) {
  const auto r = tensor[row].contiguous();
  return {r.data_ptr<std::int64_t>(), r.data_ptr<std::int64_t>() + r.numel()};
}

TEST(RLHFDataset, LeftPadsTheTemplatedPrompt) {
  TempDir dir;
  const RLHFDataset dataset(config_for(dir.file("t.jsonl", kRows), 12), qwen3());
  EXPECT_EQ(dataset.prompt_text(0), "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  const Batch batch = dataset.collate({0, 1});
  Ids expected = {151643, 151643, 151643};
  expected.insert(expected.end(), kHi.begin(), kHi.end());
  EXPECT_EQ(row_of(batch.tensor("input_ids"), 0), expected);
  EXPECT_EQ(row_of(batch.tensor("attention_mask"), 0), (Ids{0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(row_of(batch.tensor("position_ids"), 0), (Ids{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(row_of(batch.tensor("input_ids"), 1),
            (Ids{151643, 151643, 151644, 872, 198, 9707, 1879, 151645, 198, 151644, 77091, 198}));
  EXPECT_EQ(batch.non_tensor("index"), (std::vector<nlohmann::json>{7, 0}));
  EXPECT_EQ(batch.non_tensor("reward_model")[1]["ground_truth"], "2");
  EXPECT_EQ(batch.non_tensor("raw_prompt")[0][0]["content"], "Hi");
  EXPECT_EQ(batch.non_tensor("raw_prompt_ids")[0], nlohmann::json(kHi));
  EXPECT_FALSE(batch.has_non_tensor("prompt"));
}

TEST(RLHFDataset, TruncationModes) {
  TempDir dir;
  const std::string file = dir.file("t.jsonl", kRows);
  auto config = config_for(file, 5);
  const auto first_row = [&](Truncation mode) {
    config.truncation = mode;
    return row_of(RLHFDataset(config, qwen3()).collate({0}).tensor("input_ids"), 0);
  };
  EXPECT_EQ(first_row(Truncation::left), (Ids{151645, 198, 151644, 77091, 198}));
  EXPECT_EQ(first_row(Truncation::right), (Ids{151644, 872, 198, 13048, 151645}));
  EXPECT_EQ(first_row(Truncation::middle), (Ids{151644, 872, 151644, 77091, 198}));
  config.truncation = Truncation::error;
  try {
    RLHFDataset(config, qwen3()).collate({1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file + " line 2: prompt is 10 tokens, longer than "
                                                "data.max_prompt_length=5"),
              std::string::npos)
        << e.what();
  }
  // `verlpp generate` names its own flag (a break-test was told about data.* keys it lacks).
  config.overlong_wording = {"--max-prompt-length", "(verlpp generate): raise it"};
  try {
    RLHFDataset(config, qwen3()).collate({1});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), file +
                                         " line 2: prompt is 10 tokens, longer than "
                                         "--max-prompt-length=5 (verlpp generate): raise it");
  }
  EXPECT_THROW(parse_truncation("both"), Error);
}

TEST(RLHFDataset, FilterOverlongPrompts) {
  TempDir dir;
  auto config = config_for(dir.file("t.jsonl", kRows), 9);
  config.filter_overlong_prompts = true;
  const RLHFDataset dataset(config, qwen3());
  EXPECT_EQ(dataset.size(), 1);
  EXPECT_EQ(dataset.filtered_out(), 1);
  EXPECT_EQ(row_of(dataset.collate({0}).tensor("input_ids"), 0), kHi);
  config.max_prompt_length = 8;
  try {  // nothing left: the message names the files, so a user tells train from val
    RLHFDataset(config, qwen3());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "data: no rows of " + dir.path("t.jsonl") +
                                         " left after filtering 2 prompts longer than "
                                         "data.max_prompt_length=8");
  }
}

TEST(RLHFDataset, ChatTemplateKwargs) {
  TempDir dir;
  auto config = config_for(dir.file("t.jsonl", kRows), 64);
  config.apply_chat_template_kwargs = {{"enable_thinking", false}};
  EXPECT_EQ(RLHFDataset(config, qwen3()).prompt_text(0),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n");
}

TEST(RLHFDataset, SeveralFilesAndMaxSamples) {
  TempDir dir;
  auto config = config_for(dir.file("a.jsonl", kRows), 16);
  config.files.push_back(dir.file("b.jsonl", kRows));
  EXPECT_EQ(RLHFDataset(config, qwen3()).size(), 4);
  config.max_samples = 3;
  config.shuffle = false;
  const RLHFDataset first3(config, qwen3());
  ASSERT_EQ(first3.size(), 3);
  EXPECT_EQ(first3.origin(2).describe(), dir.path("b.jsonl") + " line 1");
  config.shuffle = true;
  EXPECT_EQ(RLHFDataset(config, qwen3()).size(), 3);
}

TEST(RLHFDataset, MissingPromptKeyNamesTheColumns) {
  TempDir dir;
  const std::string file =
      dir.file("q.jsonl", R"({"data_source": "x", "question": "Hi", "answer": "1"})"
                          "\n");
  try {
    RLHFDataset(config_for(file, 16), qwen3());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              file +
                  " line 1: no 'prompt' column (data.prompt_key=prompt); the row has: "
                  "data_source, question, answer");
  }
  auto config = config_for(file, 16);
  config.prompt_key = "question";  // a string, not chat messages
  EXPECT_THROW(RLHFDataset(config, qwen3()), Error);
}

// A character tokenizer without unk_token (a=0 b=1, <u>=2 <a>=3), template <u>{user}<a>: every
// other character is missing from its vocabulary.
tokenizer::Tokenizer two_letter_tokenizer(const TempDir& dir) {
  nlohmann::json added = nlohmann::json::array();
  added.push_back({{"id", 2}, {"content", "<u>"}, {"special", true}, {"normalized", false}});
  added.push_back({{"id", 3}, {"content", "<a>"}, {"special", true}, {"normalized", false}});
  const nlohmann::json tok = {
      {"added_tokens", added},
      {"model",
       {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 1}}}, {"merges", nlohmann::json::array()}}}};
  const nlohmann::json config = {{"pad_token", "<u>"},
                                 {"chat_template",
                                  "{% for m in messages %}<u>{{ m.content }}{% endfor %}"
                                  "{% if add_generation_prompt %}<a>{% endif %}"}};
  dir.file("tokenizer.json", tok.dump());
  dir.file("tokenizer_config.json", config.dump());
  return tokenizer::Tokenizer::from_directory(dir.path());
}

TEST(RLHFDataset, CharactersTheVocabularyLacksNameTheRow) {
  TempDir dir;
  const auto tok = two_letter_tokenizer(dir);
  const std::string file = dir.file("p.jsonl", R"({"prompt": [{"role": "user", "content": "ab"}]})"
                                               "\n"
                                               R"({"prompt": [{"role": "user", "content": "a?"}]})"
                                               "\n");
  const auto expect_row_2 = [&](const std::function<void()>& call) {
    try {
      call();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(file + " line 2: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("'?' is not in the vocabulary"), std::string::npos)
          << e.what();
    }
  };
  auto config = config_for(file, 16);
  config.shuffle = false;
  const RLHFDataset dataset(config, tok);
  expect_row_2([&] { dataset.collate({1}); });
  config.filter_overlong_prompts = true;  // every prompt encoded while the dataset is built
  expect_row_2([&] { RLHFDataset(config, tok); });
}

}  // namespace
}  // namespace verlpp::data
