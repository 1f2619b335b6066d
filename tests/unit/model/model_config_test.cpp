// config.json parsing. Expected values are read off the JSON given in each test (and, for the
// preset, off the published Qwen3-0.6B config.json in tests/fixtures/models).
#include "verlpp/model/model_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model_fixture.h"
#include "verlpp/core/error.h"
#include "verlpp/model/presets.h"

namespace verlpp::model {
namespace {

using nlohmann::json;

json tiny(const std::string& arch) {
  return {{"architectures", {arch}},  {"vocab_size", 100},      {"hidden_size", 64},
          {"intermediate_size", 128}, {"num_hidden_layers", 2}, {"num_attention_heads", 4}};
}

std::string error_of(const json& j) {
  try {
    parse_model_config(j, "cfg.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelConfig, Qwen3_0_6bPublishedConfig) {
  const ModelConfig c =
      load_model_config(std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/models/qwen3-0.6b");
  EXPECT_EQ(c.architecture, Architecture::qwen3);
  EXPECT_EQ(c.head_dim, 128);
  EXPECT_EQ(c.num_key_value_heads, 8);
  EXPECT_EQ(c.rope_theta, 1000000.0);
  EXPECT_EQ(c.rope_scaling.type, "default");
  EXPECT_TRUE(c.qk_norm);
  EXPECT_FALSE(c.qkv_bias);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_EQ(c.eos_token_id, 151645);
  // Qwen3-0.6B: 0.6B parameters (596,049,920 with the tied embedding, from the shapes).
  EXPECT_EQ(c.num_parameters(), 596049920);
}

TEST(ModelConfig, PresetMatchesPublishedConfig) {
  const ModelConfig p = preset_config("qwen3-0.6b");
  const ModelConfig c =
      load_model_config(std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/models/qwen3-0.6b");
  EXPECT_EQ(model_config_to_json(p), model_config_to_json(c));
  EXPECT_THROW(preset_config("qwen9"), Error);
}

TEST(ModelConfig, ArchitectureDefaults) {
  const ModelConfig q2 = parse_model_config(tiny("Qwen2ForCausalLM"), "q2");
  EXPECT_TRUE(q2.qkv_bias);
  EXPECT_FALSE(q2.o_bias);
  EXPECT_FALSE(q2.qk_norm);
  EXPECT_EQ(q2.head_dim, 16);
  EXPECT_EQ(q2.num_key_value_heads, 4);
  const ModelConfig q3 = parse_model_config(tiny("Qwen3ForCausalLM"), "q3");
  EXPECT_EQ(q3.head_dim, 128);  // Qwen3Config's default head_dim
  json llama = tiny("LlamaForCausalLM");
  llama["attention_bias"] = true;
  llama["mlp_bias"] = true;
  const ModelConfig l = parse_model_config(llama, "l");
  EXPECT_TRUE(l.qkv_bias && l.o_bias && l.mlp_bias);
}

TEST(ModelConfig, RopeInBothTransformersForms) {
  json v4 = tiny("LlamaForCausalLM");
  v4["rope_theta"] = 500000.0;
  v4["rope_scaling"] = {{"rope_type", "llama3"},
                        {"factor", 8.0},
                        {"low_freq_factor", 1.0},
                        {"high_freq_factor", 4.0},
                        {"original_max_position_embeddings", 8192}};
  json v5 = tiny("LlamaForCausalLM");
  v5["rope_parameters"] = v4["rope_scaling"];
  v5["rope_parameters"]["rope_theta"] = 500000.0;
  for (const json& j : {v4, v5}) {
    const ModelConfig c = parse_model_config(j, "x");
    EXPECT_EQ(c.rope_theta, 500000.0);
    EXPECT_EQ(c.rope_scaling.type, "llama3");
    EXPECT_EQ(c.rope_scaling.factor, 8.0);
    EXPECT_EQ(c.rope_scaling.original_max_position_embeddings, 8192);
  }
  const ModelConfig back =
      parse_model_config(model_config_to_json(parse_model_config(v5, "x")), "y");
  EXPECT_EQ(back.rope_scaling.high_freq_factor, 4.0);
}

TEST(ModelConfig, ErrorsNameTheProblem) {
  EXPECT_NE(error_of(tiny("MistralForCausalLM"))
                .find("architecture 'MistralForCausalLM' is not supported"),
            std::string::npos);
  json j = tiny("Qwen3ForCausalLM");
  j.erase("hidden_size");
  EXPECT_NE(error_of(j).find("cfg.json: missing 'hidden_size'"), std::string::npos);
  j = tiny("Qwen3ForCausalLM");
  j["num_key_value_heads"] = 3;
  EXPECT_NE(error_of(j).find("not a multiple of num_key_value_heads 3"), std::string::npos);
  j = tiny("Qwen3ForCausalLM");
  j["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 2.0}};
  EXPECT_NE(error_of(j).find("rope_type 'dynamic' is not supported"), std::string::npos);
  j = tiny("Qwen2ForCausalLM");
  j["use_sliding_window"] = true;
  EXPECT_NE(error_of(j).find("use_sliding_window"), std::string::npos);
  j = tiny("Qwen2ForCausalLM");
  j["hidden_act"] = "gelu";
  EXPECT_NE(error_of(j).find("hidden_act \"gelu\""), std::string::npos);
}

// transformers applies attention_dropout in training; verlpp has no dropout, so a config that asks
// for it is refused (0 and absent are accepted).
TEST(ModelConfig, NonZeroAttentionDropoutIsRefused) {
  json j = tiny("Qwen3ForCausalLM");
  j["attention_dropout"] = 0.0;
  EXPECT_EQ(error_of(j), "");
  j["attention_dropout"] = 0.1;
  EXPECT_NE(error_of(j).find("cfg.json: 'attention_dropout' is 0.1; verlpp trains without dropout"),
            std::string::npos)
      << error_of(j);
}

// verl's update_model_config: each key sets its field; a map into a map field (a sub-config)
// applies key by key, any other value replaces the field. Expected JSON written out by hand.
TEST(ConfigOverrides, SetFieldsAsVerlsUpdateModelConfig) {
  json config = {{"max_position_embeddings", 40960},
                 {"rope_scaling", nullptr},
                 {"text_config", {{"rms_norm_eps", 1e-6}, {"vocab_size", 100}}},
                 {"layer_types", {"full_attention"}}};
  const json overrides = {{"max_position_embeddings", 32768},
                          {"text_config", {{"rms_norm_eps", 1e-5}, {"head_dim", 16}}},
                          {"rope_scaling", {{"rope_type", "linear"}, {"factor", 2.0}}},
                          {"layer_types", "none"},
                          {"new_field", 1}};
  apply_config_overrides(config, overrides);
  const json expected = {
      {"max_position_embeddings", 32768},
      {"rope_scaling", {{"rope_type", "linear"}, {"factor", 2.0}}},
      {"text_config", {{"rms_norm_eps", 1e-5}, {"vocab_size", 100}, {"head_dim", 16}}},
      {"layer_types", "none"},
      {"new_field", 1}};
  EXPECT_EQ(config, expected);
  apply_config_overrides(config, json());  // null: nothing
  EXPECT_EQ(config, expected);
  EXPECT_THROW(apply_config_overrides(config, json::array({1})), Error);
  // A map into a field the config lacks (bt14: text_config on a plain Qwen3): verl's getattr
  // fails; refused.
  try {
    apply_config_overrides(config, {{"vision_config", {{"depth", 2}}}});
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "override_config.vision_config: the config has no field 'vision_config' to apply a "
              "map to (verl's update_model_config fails there too)");
  }
}

// transformers 4 reads rope_theta / rope_scaling / partial_rotary_factor, 5 their copies in
// rope_parameters: a config whose two forms disagree is refused (bt14: an override of one form
// was silently shadowed by the other).
TEST(ModelConfig, RopeFormsThatDisagreeAreRefused) {
  json j = tiny("Qwen3ForCausalLM");
  j["rope_theta"] = 1000000.0;
  j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 1000000}};
  EXPECT_EQ(error_of(j), "");
  j["rope_parameters"]["rope_theta"] = 100.0;
  EXPECT_NE(error_of(j).find("cfg.json: rope_theta is 1000000.0 but rope_parameters.rope_theta is "
                             "100.0"),
            std::string::npos)
      << error_of(j);
  j = tiny("LlamaForCausalLM");
  j["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  j["rope_parameters"] = {{"rope_type", "linear"}, {"factor", 2.0}, {"rope_theta", 10000.0}};
  EXPECT_EQ(error_of(j), "");
  j["rope_parameters"]["factor"] = 4.0;
  EXPECT_NE(error_of(j).find("describe different RoPE"), std::string::npos) << error_of(j);
  j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 10000.0}};
  EXPECT_NE(error_of(j).find("describe different RoPE"), std::string::npos) << error_of(j);
}

// An override has effect when the config verlpp parsed (and would save) holds its value.
TEST(ConfigOverrides, WithoutEffectAreTheFieldsTheParsedConfigDoesNotHold) {
  json base = tiny("Qwen3ForCausalLM");
  base["rope_scaling"] = nullptr;
  const auto without_effect = [&](const json& overrides) {
    json config = base;
    apply_config_overrides(config, overrides);
    return overrides_without_effect(parse_model_config(config, "cfg.json"), overrides);
  };
  using Paths = std::vector<std::string>;
  EXPECT_EQ(without_effect({{"max_position_embeddings", 4096}, {"rms_norm_eps", 1e-5}}), Paths{});
  EXPECT_EQ(without_effect({{"rope_scaling", {{"type", "linear"}, {"factor", 2.0}}}}), Paths{});
  EXPECT_EQ(without_effect({{"rope_theta", 5000}}), Paths{});  // 5000 == 5000.0
  EXPECT_EQ(without_effect({{"foo_bar", 1}, {"max_position_embedding", 200}}),
            (Paths{"foo_bar", "max_position_embedding"}));
  EXPECT_EQ(without_effect({{"use_cache", false}}), Paths{"use_cache"});
  EXPECT_EQ(without_effect({{"rope_scaling", {{"type", "linear"}, {"factor", 2.0}, {"x", 1}}}}),
            Paths{"rope_scaling.x"});
}

// Through the file: the published Qwen3-0.6B config.json (max_position_embeddings 40960).
TEST(ConfigOverrides, LoadAndShapeReadTheOverriddenConfig) {
  const std::string dir = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/models/qwen3-0.6b";
  EXPECT_EQ(load_model_config(dir).max_position_embeddings, 40960);
  EXPECT_EQ(load_model_config(dir, {{"max_position_embeddings", 32768}}).max_position_embeddings,
            32768);
  const ModelShapeRead read = read_model_shape(dir, {{"max_position_embeddings", 32768}});
  ASSERT_TRUE(read.shape) << read.why_not;
  EXPECT_EQ(read.shape->max_position_embeddings, 32768);
  EXPECT_EQ(read.shape->source, dir + "/config.json with override_config");
  try {
    load_model_config(dir, {{"attention_dropout", 0.1}});
    ADD_FAILURE() << "dropout accepted";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("config.json with override_config: 'attention_dropout' is 0.1"),
        std::string::npos)
        << e.what();
  }
  const ModelShapeRead refused = read_model_shape(dir, {{"attention_dropout", 0.1}});
  EXPECT_FALSE(refused.shape);
  EXPECT_FALSE(refused.absent);
}

}  // namespace
}  // namespace verlpp::model
