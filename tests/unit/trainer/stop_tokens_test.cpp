// The rollout's stop and pad ids, shared by `verlpp ppo` and `verlpp generate`: the Qwen3
// tokenizer fixture's eos is <|im_end|> 151645 and its pad <|endoftext|> 151643 (its
// tokenizer_config.json); the model folder adds config.json's and generation_config.json's eos.
#include "verlpp/trainer/stop_tokens.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error_of.h"
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

using verlpp::testing::error_of;

TEST_F(StopTokens, BadGenerationConfigIsNamed) {
  model::ModelConfig config;
  const auto stop_ids = [&] { stop_token_ids(nullptr, dir_.string(), config); };
  const std::string path = (dir_ / "generation_config.json").string();
  // Strings, and an id past int32 that would wrap onto token 11 (report bt11), are refused.
  for (const char* eos : {R"(["x"])", R"([1, "a"])", "4294967307", "-3"}) {
    generation_config(std::string(R"({"eos_token_id": )") + eos + "}");
    EXPECT_EQ(error_of(stop_ids),
              path +
                  ": eos_token_id: expected a token id or a list of token ids (integers from 0 "
                  "to 2147483647), got " +
                  nlohmann::json::parse(eos).dump());
  }
  generation_config("[1, 2]");
  EXPECT_EQ(error_of(stop_ids), path + ": expected a JSON object");
  fs::remove(dir_ / "generation_config.json");
  fs::create_directory(dir_ / "generation_config.json");
  EXPECT_EQ(error_of(stop_ids), path + ": generation config is a folder, not a file");
}

TEST_F(StopTokens, ConfigEosIdsAreTokenIds) {
  const auto config_with = [](const std::string& eos) {
    return model::parse_model_config(
        nlohmann::json::parse(R"({"architectures": ["Qwen3ForCausalLM"], "vocab_size": 32,
            "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 1,
            "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
            "eos_token_id": )" +
                              eos + "}"),
        "config.json");
  };
  EXPECT_EQ(config_with("[7, 8]").eos_token_id, 7);
  EXPECT_EQ(config_with("-1").eos_token_id, -1);
  EXPECT_EQ(config_with("null").eos_token_id, -1);
  for (const char* eos : {R"("abc")", R"(["a", "b"])", "4294967307"}) {
    EXPECT_EQ(error_of([&] { config_with(eos); }),
              std::string("config.json: 'eos_token_id' must be a token id or a list of token ids, "
                          "got ") +
                  nlohmann::json::parse(eos).dump())
        << eos;
  }
}

}  // namespace
}  // namespace verlpp::trainer
