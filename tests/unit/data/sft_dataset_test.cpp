#include "verlpp/data/sft_dataset.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "verlpp/core/error.h"

namespace verlpp::data {
namespace {

using testing::TempDir;
using Ids = std::vector<std::int32_t>;
using Mask = std::vector<std::uint8_t>;

// A character tokenizer: a=0 b=1 c=2 d=3 x=4 y=5, <u>=6 <a>=7 <e>=8 (eos), <s>=9 (system).
// Template: <s>{system} <u>{user} <a>{assistant}<e>, generation prompt <a>; `preamble` goes
// first.
tokenizer::Tokenizer test_tokenizer(const TempDir& dir, const std::string& preamble = "",
                                    const std::string& generation_prompt = "<a>") {
  nlohmann::json added = nlohmann::json::array();
  const char* specials[] = {"<u>", "<a>", "<e>", "<s>"};
  for (int i = 0; i < 4; ++i) {
    added.push_back(
        {{"id", 6 + i}, {"content", specials[i]}, {"special", true}, {"normalized", false}});
  }
  const nlohmann::json tok = {
      {"added_tokens", added},
      {"decoder", {{"type", "Fuse"}}},
      {"model",
       {{"type", "BPE"},
        {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"d", 3}, {"x", 4}, {"y", 5}}},
        {"merges", nlohmann::json::array()}}}};
  const nlohmann::json config = {
      {"eos_token", "<e>"},
      {"chat_template",
       preamble +
           "{% for m in messages %}{% if m.role == 'system' %}<s>{{ m.content }}"
           "{% elif m.role == 'user' %}<u>{{ m.content }}{% else %}<a>{{ m.content }}<e>{% endif %}"
           "{% endfor %}{% if add_generation_prompt %}" +
           generation_prompt + "{% endif %}"}};
  dir.file("tokenizer.json", tok.dump());
  dir.file("tokenizer_config.json", config.dump());
  return tokenizer::Tokenizer::from_directory(dir.path());
}

Row messages(std::initializer_list<std::pair<const char*, const char*>> turns) {
  Row list = Row::array();
  for (const auto& [role, content] : turns) list.push_back({{"role", role}, {"content", content}});
  return {{"messages", list}};
}

TEST(SftDataset, MultiTurnMasksOnlyAssistantTokens) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  const SftExample e = encode_sft_row(messages({{"system", "x"},
                                                {"user", "ab"},
                                                {"assistant", "cd"},
                                                {"user", "y"},
                                                {"assistant", "a"}}),
                                      config, tok, "row 0");
  // <s> x <u> a b <a> c d <e> <u> y <a> a <e>
  EXPECT_EQ(e.input_ids, (Ids{9, 4, 6, 0, 1, 7, 2, 3, 8, 6, 5, 7, 0, 8}));
  // Learned: assistant contents and their end tokens; not the <a> headers.
  EXPECT_EQ(e.loss_mask, (Mask{0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1}));
}

TEST(SftDataset, SingleTurnLearnsResponseAndEos) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  config.prompt_key = "q";
  config.response_key = "r";
  const SftExample e = encode_sft_row({{"q", "ab"}, {"r", "cd"}}, config, tok, "row 0");
  EXPECT_EQ(e.input_ids, (Ids{6, 0, 1, 7, 2, 3, 8}));  // <u> a b <a> c d <e>
  EXPECT_EQ(e.loss_mask, (Mask{0, 0, 0, 0, 1, 1, 1}));
}

TEST(SftDataset, TruncationModes) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  config.prompt_key = "q";
  config.response_key = "r";
  config.max_length = 5;
  const Row row = {{"q", "ab"}, {"r", "cd"}};
  try {
    encode_sft_row(row, config, tok, "f.jsonl line 3");
    FAIL() << "expected verlpp::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("f.jsonl line 3: the sequence is 7 tokens, longer than "
                                         "data.max_length=5"),
              std::string::npos)
        << e.what();
  }
  config.truncation = "right";
  EXPECT_EQ(encode_sft_row(row, config, tok, "").input_ids, (Ids{6, 0, 1, 7, 2}));
  config.truncation = "left";
  const SftExample left = encode_sft_row(row, config, tok, "");
  EXPECT_EQ(left.input_ids, (Ids{1, 7, 2, 3, 8}));
  EXPECT_EQ(left.loss_mask, (Mask{0, 0, 1, 1, 1}));
}

TEST(SftDataset, BadRowsAreNamed) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  const auto error_of = [&](const Row& row) {
    try {
      encode_sft_row(row, config, tok, "t.jsonl line 2");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error_of({{"prompt", "x"}}).find("t.jsonl line 2: no 'messages' column"),
            std::string::npos);
  EXPECT_NE(error_of({{"messages", "x"}}).find("non-empty list of chat messages"),
            std::string::npos);
  // Characters the vocabulary lacks (and no unk_token), in a multi-turn and a single-turn row.
  const std::string lacking = error_of(messages({{"user", "ab"}, {"assistant", "az"}}));
  EXPECT_EQ(lacking.rfind("t.jsonl line 2: ", 0), 0u) << lacking;
  EXPECT_NE(lacking.find("'z' is not in the vocabulary"), std::string::npos) << lacking;
  SftDatasetConfig single;
  single.prompt_key = "q";
  single.response_key = "r";
  try {
    encode_sft_row({{"q", "ab"}, {"r", "a!"}}, single, tok, "t.jsonl line 3");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("t.jsonl line 3: ", 0), 0u) << e.what();
  }
}

TEST(SftDataset, ReadsFilesAndLimitsSamples) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  config.prompt_key = "q";
  config.response_key = "r";
  config.files = {dir.file("train.jsonl",
                           "{\"q\": \"a\", \"r\": \"b\"}\n{\"q\": \"c\", \"r\": "
                           "\"d\"}\n{\"q\": \"x\", \"r\": \"y\"}\n")};
  config.max_samples = 2;
  const SftDataset dataset(config, tok);
  ASSERT_EQ(dataset.size(), 2);
  EXPECT_EQ(dataset.example(1).input_ids, (Ids{6, 2, 7, 3, 8}));
}

// verl keeps a row that truncation left nothing to learn (it adds nothing to the loss); verlpp
// stopped the run on it (report bt8). Only a dataset of such rows is an error.
TEST(SftDataset, UnlearnableRowsAreKeptAndCounted) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  config.files = {dir.file("t.jsonl",
                           "{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, "
                           "{\"role\": \"assistant\", \"content\": \"b\"}]}\n"
                           "{\"messages\": [{\"role\": \"user\", \"content\": \"ab\"}]}\n")};
  const SftDataset dataset(config, tok);
  EXPECT_EQ(dataset.size(), 2);
  EXPECT_EQ(dataset.unlearnable_rows(), 1);
  EXPECT_NE(dataset.first_unlearnable().find("t.jsonl line 2"), std::string::npos)
      << dataset.first_unlearnable();
  EXPECT_EQ(learned_tokens(dataset.example(1)), 0);
  EXPECT_EQ(learned_tokens(dataset.example(0)), 2);
  config.files = {
      dir.file("none.jsonl", "{\"messages\": [{\"role\": \"user\", \"content\": \"ab\"}]}\n")};
  try {
    const SftDataset none(config, tok);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no row has a token to learn (no assistant message or "
                                         "response, or none left within data.max_length=1024 "
                                         "after truncation; the first: "),
              std::string::npos)
        << e.what();
  }
}

// verl's older SFT rows keep the prompt and response inside a map column (GSM8K's extra_info):
// +data.prompt_dict_keys=[question] +data.response_dict_keys=[answer].
TEST(SftDataset, DictKeysLeadIntoNestedColumns) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  config.prompt_key = config.response_key = "extra_info";
  config.prompt_dict_keys = {"question"};
  config.response_dict_keys = {"answer"};
  const Row row = {{"extra_info", {{"question", "ab"}, {"answer", "cd"}}}};
  const SftExample e = encode_sft_row(row, config, tok, "row 0");
  EXPECT_EQ(e.input_ids, (Ids{6, 0, 1, 7, 2, 3, 8}));  // <u> a b <a> c d <e>
  EXPECT_EQ(e.loss_mask, (Mask{0, 0, 0, 0, 1, 1, 1}));
  config.response_dict_keys = {"solution"};
  try {
    encode_sft_row(row, config, tok, "t.jsonl line 4");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.jsonl line 4: 'extra_info' has no entry 'solution' "
                                         "(data.response_dict_keys)"),
              std::string::npos)
        << e.what();
  }
}

// A row's tools and enable_thinking columns reach the template (else enable_thinking_default),
// as verl's MultiTurnSFTDataset passes them.
TEST(SftDataset, ToolsAndEnableThinkingReachTheTemplate) {
  TempDir dir;
  const auto tok =
      test_tokenizer(dir,
                     "{% if enable_thinking is defined and enable_thinking %}x{% endif %}"
                     "{% if tools %}{% for t in tools %}y{% endfor %}{% endif %}");
  SftDatasetConfig config;
  Row row = messages({{"user", "a"}, {"assistant", "b"}});
  EXPECT_EQ(encode_sft_row(row, config, tok, "").input_ids, (Ids{6, 0, 7, 1, 8}));
  row["tools"] = Row::array({Row{{"name", "f"}}, Row{{"name", "g"}}});
  row["enable_thinking"] = true;
  const SftExample both = encode_sft_row(row, config, tok, "");
  EXPECT_EQ(both.input_ids, (Ids{4, 5, 5, 6, 0, 7, 1, 8}));  // x y y <u> a <a> b <e>
  EXPECT_EQ(both.loss_mask, (Mask{0, 0, 0, 0, 0, 0, 1, 1}));
  row["enable_thinking"] = false;
  config.enable_thinking_default = true;  // the row's own value wins
  EXPECT_EQ(encode_sft_row(row, config, tok, "").input_ids, (Ids{5, 5, 6, 0, 7, 1, 8}));
  row.erase("enable_thinking");
  row.erase("tools");
  EXPECT_EQ(encode_sft_row(row, config, tok, "").input_ids, (Ids{4, 6, 0, 7, 1, 8}));
  row["enable_thinking"] = nullptr;  // the row's cell, null: no kwarg (not the default)
  EXPECT_EQ(encode_sft_row(row, config, tok, "").input_ids, (Ids{6, 0, 7, 1, 8}));
  config.enable_thinking_key = std::nullopt;  // data.enable_thinking_key=null: the default
  EXPECT_EQ(encode_sft_row(row, config, tok, "").input_ids, (Ids{4, 6, 0, 7, 1, 8}));
  config.enable_thinking_key = "enable_thinking";
  row["enable_thinking"] = "yes";
  try {
    encode_sft_row(row, config, tok, "t.jsonl line 5");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.jsonl line 5: 'enable_thinking' "
                                         "(data.enable_thinking_key) must be true, false or null"),
              std::string::npos)
        << e.what();
  }
  row.erase("enable_thinking");
  row["tools"] = "f";
  try {
    encode_sft_row(row, config, tok, "t.jsonl line 6");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(data.tools_key) must be a list of tool schemas"),
              std::string::npos)
        << e.what();
  }
}

// A conversation that opens with an assistant turn: its header is the template's generation
// prompt, found in its own rendering (verlpp rendered an empty conversation first, which
// templates refuse; report bt8).
TEST(SftDataset, AnAssistantTurnFirstLearnsItsContent) {
  TempDir dir;
  const auto tok = test_tokenizer(dir);
  SftDatasetConfig config;
  const SftExample e = encode_sft_row(
      messages({{"assistant", "cd"}, {"user", "ab"}, {"assistant", "a"}}), config, tok, "row 0");
  // <a> c d <e> <u> a b <a> a <e>
  EXPECT_EQ(e.input_ids, (Ids{7, 2, 3, 8, 6, 0, 1, 7, 0, 8}));
  EXPECT_EQ(e.loss_mask, (Mask{0, 1, 1, 1, 0, 0, 0, 0, 1, 1}));
}

// A template without a generation prompt: an assistant turn's tokens are all learned, first or
// not (verlpp refused the first; verl trains it; report bt9).
TEST(SftDataset, WithoutAGenerationPromptAnAssistantTurnIsLearnedWhole) {
  TempDir dir;
  const auto tok = test_tokenizer(dir, "", "");
  SftDatasetConfig config;
  const SftExample e = encode_sft_row(
      messages({{"assistant", "cd"}, {"user", "ab"}, {"assistant", "a"}}), config, tok, "row 0");
  EXPECT_EQ(e.input_ids, (Ids{7, 2, 3, 8, 6, 0, 1, 7, 0, 8}));
  EXPECT_EQ(e.loss_mask, (Mask{1, 1, 1, 1, 0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace verlpp::data
