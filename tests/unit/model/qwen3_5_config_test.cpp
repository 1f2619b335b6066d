// Qwen3.5 and Qwen3.5-MoE config.json parsing, off the published Qwen3.5-2B and Qwen3.5-35B-A3B
// configs in tests/fixtures/models (their values are read off those files), and the one-line
// errors for inconsistent fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "verlpp/core/error.h"
#include "verlpp/model/model_config.h"
#include "verlpp/model/presets.h"

namespace verlpp::model {
namespace {

using nlohmann::json;

std::string published(const std::string& name) {
  return std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/models/" + name;
}

int64_t count(const ModelConfig& c, LayerType t) {
  return std::count(c.layer_types.begin(), c.layer_types.end(), t);
}

TEST(Qwen3_5Config, Qwen3_5_2bPublishedConfig) {
  const ModelConfig c = load_model_config(published("qwen3.5-2b"));
  EXPECT_EQ(c.architecture, Architecture::qwen3_5);
  EXPECT_TRUE(c.vision_language);
  EXPECT_EQ(c.hidden_size, 2048);
  EXPECT_EQ(c.intermediate_size, 6144);
  EXPECT_EQ(c.num_hidden_layers, 24);
  EXPECT_EQ(c.num_attention_heads, 8);
  EXPECT_EQ(c.num_key_value_heads, 2);
  EXPECT_EQ(c.head_dim, 256);
  EXPECT_EQ(count(c, LayerType::full_attention), 6);
  EXPECT_TRUE(c.is_linear_attention_layer(0));
  EXPECT_FALSE(c.is_linear_attention_layer(3));
  EXPECT_EQ(c.linear_attention.num_key_heads, 16);
  EXPECT_EQ(c.linear_attention.num_value_heads, 16);
  EXPECT_EQ(c.linear_attention.conv_dim(), 2 * 16 * 128 + 16 * 128);
  EXPECT_EQ(c.rotary_dim(), 64);
  EXPECT_EQ(c.mrope_section, (std::vector<int64_t>{11, 11, 10}));
  EXPECT_EQ(c.rope_theta, 1e7);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_TRUE(c.qk_norm);
  EXPECT_EQ(c.torch_dtype, "bfloat16");
  EXPECT_EQ(c.eos_token_id, 248044);
  EXPECT_EQ(c.moe.num_experts, 0);
}

TEST(Qwen3_5Config, Qwen3_5_35bA3bPublishedConfig) {
  const ModelConfig c = load_model_config(published("qwen3.5-35b-a3b"));
  EXPECT_EQ(c.architecture, Architecture::qwen3_5_moe);
  EXPECT_EQ(c.num_hidden_layers, 40);
  EXPECT_EQ(count(c, LayerType::full_attention), 10);
  EXPECT_EQ(c.linear_attention.num_value_heads, 32);
  EXPECT_EQ(c.moe.num_experts, 256);
  EXPECT_EQ(c.moe.num_experts_per_tok, 8);
  EXPECT_EQ(c.moe.moe_intermediate_size, 512);
  EXPECT_EQ(c.moe.shared_expert_intermediate_size, 512);
  EXPECT_TRUE(c.moe.norm_topk_prob);  // always, in Qwen3.5-MoE
  for (int64_t i = 0; i < 40; ++i) EXPECT_TRUE(c.is_sparse_layer(i));
  EXPECT_FALSE(c.tie_word_embeddings);
  // models.md §6: about 35B parameters in all.
  EXPECT_GT(c.num_parameters(), 34e9);
  EXPECT_LT(c.num_parameters(), 36.5e9);
}

TEST(Qwen3_5Config, PresetsMatchPublishedConfigs) {
  for (const auto& [preset, dir] :
       {std::pair{"qwen3.5-2b", "qwen3.5-2b"}, {"qwen3.5-35b-a3b", "qwen3.5-35b-a3b"}}) {
    ModelConfig a = preset_config(preset);
    ModelConfig b = load_model_config(published(dir));
    EXPECT_EQ(model_config_to_json(a), model_config_to_json(b)) << preset;
  }
}

TEST(Qwen3_5Config, SavedTextConfigReadsBack) {
  const ModelConfig c = load_model_config(published("qwen3.5-35b-a3b"));
  const json j = model_config_to_json(c);
  EXPECT_EQ(j["architectures"][0], "Qwen3_5MoeForCausalLM");
  EXPECT_EQ(j["model_type"], "qwen3_5_moe_text");
  EXPECT_FALSE(j.contains("intermediate_size"));
  const ModelConfig back = parse_model_config(j, "saved");
  EXPECT_FALSE(back.vision_language);
  EXPECT_EQ(model_config_to_json(back), j);
  EXPECT_EQ(back.num_parameters(), c.num_parameters());
}

TEST(Qwen3_5Config, DefaultsAsTransformers) {
  json j = {{"architectures", {"Qwen3_5ForCausalLM"}},
            {"vocab_size", 100},
            {"hidden_size", 64},
            {"intermediate_size", 96},
            {"num_hidden_layers", 8},
            {"num_attention_heads", 4},
            {"num_key_value_heads", 2},
            {"head_dim", 24}};
  const ModelConfig c = parse_model_config(j, "cfg.json");
  // No layer_types: layer i is full attention iff (i + 1) % 4 == 0.
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(c.is_linear_attention_layer(i), (i + 1) % 4 != 0);
  EXPECT_EQ(c.partial_rotary_factor, 0.25);  // injected when the JSON lacks it
  EXPECT_EQ(c.rotary_dim(), 6);
  EXPECT_EQ(c.linear_attention.conv_kernel_dim, 4);
  j["full_attention_interval"] = 2;
  j["layer_types"] = nullptr;
  EXPECT_FALSE(parse_model_config(j, "cfg.json").is_linear_attention_layer(1));
  // Legacy names.
  j["layer_types"] = {"attention",        "mamba",          "conv",  "attention",
                      "linear_attention", "full_attention", "mamba", "mamba"};
  const ModelConfig legacy = parse_model_config(j, "cfg.json");
  EXPECT_FALSE(legacy.is_linear_attention_layer(0));
  EXPECT_TRUE(legacy.is_linear_attention_layer(2));
}

std::string error_of(const json& j) {
  try {
    parse_model_config(j, "cfg.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Qwen3_5Config, ErrorsNameTheField) {
  json base;
  {
    std::ifstream in(published("qwen3.5-2b") + "/config.json");
    base = json::parse(in);
  }
  json j = base;
  j["text_config"]["linear_num_value_heads"] = 24;
  EXPECT_EQ(error_of(j),
            "cfg.json: text_config: linear_num_value_heads 24 is not a multiple of "
            "linear_num_key_heads 16");
  j = base;
  j["text_config"]["layer_types"].erase(0);
  EXPECT_EQ(error_of(j),
            "cfg.json: text_config: layer_types must be a list of num_hidden_layers = 24 entries, "
            "got 23 entries");
  j = base;
  j["text_config"]["layer_types"][2] = "sliding_attention";
  EXPECT_NE(error_of(j).find("layer_types entry 'sliding_attention' is not supported"),
            std::string::npos);
  j = base;
  j.erase("text_config");
  EXPECT_NE(error_of(j).find("missing 'text_config'"), std::string::npos);
  j = base;
  j["text_config"]["rope_parameters"]["partial_rotary_factor"] = 0.003;
  EXPECT_NE(error_of(j).find("partial_rotary_factor 0.003 gives rotary dimension"),
            std::string::npos);
  j = base;
  j["text_config"]["rope_parameters"]["mrope_section"] = {11, 11, 11};
  EXPECT_NE(error_of(j).find("mrope_section [11,11,11] sums to 33, expected rotary dimension / 2 "
                             "= 32"),
            std::string::npos);
}

}  // namespace
}  // namespace verlpp::model
