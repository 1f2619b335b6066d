// The rollout's stop and pad ids, shared by `verlpp ppo` and `verlpp generate`: the Qwen3
// tokenizer fixture's eos is <|im_end|> 151645 and its pad <|endoftext|> 151643 (its
// tokenizer_config.json); the model folder adds config.json's and generation_config.json's eos.
#include "verlpp/trainer/stop_tokens.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/temp_dir.h"
#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {

namespace fs = std::filesystem;

class StopTokens : public ::testing::Test {
 protected:
  void generation_config(const std::string& json) {
    std::ofstream(dir_ / "generation_config.json") << json;
  }
  const verlpp::testing::TempDir temp_;
  const fs::path dir_ = temp_.root();
};

TEST_F(StopTokens, TokenizerConfigAndGenerationConfigTogether) {
  const auto tok = tokenizer::Tokenizer::from_directory(std::string(VERLPP_SOURCE_DIR) +
                                                        "/tests/fixtures/tokenizers/qwen3");
  model::ModelConfig config;
  config.eos_token_id = 2;
  generation_config(R"({"eos_token_id": [151645, 151643, 7]})");
  EXPECT_EQ(stop_token_ids(&tok, dir_.string(), config),
            (std::vector<std::int32_t>{2, 7, 151643, 151645}));
  EXPECT_EQ(pad_token_id(&tok), 151643);
}

TEST_F(StopTokens, TokenIdsWithoutATokenizer) {
  model::ModelConfig config;
  config.eos_token_id = 5;
  EXPECT_EQ(stop_token_ids(nullptr, dir_.string(), config), std::vector<std::int32_t>{5});
  generation_config(R"({"eos_token_id": 9})");
  EXPECT_EQ(stop_token_ids(nullptr, dir_.string(), config), (std::vector<std::int32_t>{5, 9}));
  EXPECT_EQ(pad_token_id(nullptr), 0);
}

TEST_F(StopTokens, BadGenerationConfigIsNamed) {
  model::ModelConfig config;
  generation_config(R"({"eos_token_id": ["x"]})");
  try {
    stop_token_ids(nullptr, dir_.string(), config);
    FAIL() << "a list of strings was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("generation_config.json: eos_token_id must hold integers"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace verlpp::trainer
