// A model section's model (trainer/hf_model_loader.h): its config from hf_config_path with
// override_config on top, its weights from path, its errors naming the section's keys. Expected
// values are the ones the test writes into the config; the weights are compared with the plain
// loader's.
#include "verlpp/trainer/hf_model_loader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "../common/error_of.h"
#include "../common/temp_dir.h"
#include "verlpp/config/hf_model.h"
#include "verlpp/core/json_file.h"

namespace verlpp::trainer {
namespace {

const std::string kTiny = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/qwen3_tied";

// As the trainers load a section's model: its config read once, then the weights.
model::CausalLM load(const config::ModelConfig& section, const std::string& key) {
  return load_hf_model(config::load_hf_model_config(section, key), section, key, at::kFloat,
                       at::kCPU, false);
}

void expect_same_weights(const model::CausalLM& a, const model::CausalLM& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].first, pb[i].first);
    EXPECT_TRUE(pa[i].second.equal(pb[i].second)) << pa[i].first;
  }
}

TEST(HfModelLoader, OverrideConfigAndHfConfigPathSetTheConfigNotTheWeights) {
  const model::CausalLM plain = model::CausalLM::from_pretrained(kTiny, at::kFloat, at::kCPU);
  config::ModelConfig section;
  section.path = kTiny;
  section.override_config = {{"rms_norm_eps", 0.001}, {"max_position_embeddings", 512}};
  const model::CausalLM overridden = load(section, "actor_rollout_ref.model");
  EXPECT_EQ(overridden.config().rms_norm_eps, 0.001);
  EXPECT_EQ(overridden.config().max_position_embeddings, 512);
  EXPECT_NE(plain.config().rms_norm_eps, 0.001);
  expect_same_weights(overridden, plain);

  // A config elsewhere (hf_config_path); override_config still applies on top of it.
  const testing::TempDir dir;
  nlohmann::json config = read_json_file(kTiny + "/config.json", "config");
  config["max_position_embeddings"] = 300;
  config["rope_parameters"]["rope_theta"] = 5000.0;
  dir.file("config.json", config.dump());
  section.hf_config_path = dir.path();
  const model::CausalLM elsewhere = load(section, "actor_rollout_ref.model");
  EXPECT_EQ(elsewhere.config().rope_theta, 5000.0);
  EXPECT_EQ(elsewhere.config().max_position_embeddings, 512);
  expect_same_weights(elsewhere, plain);
}

TEST(HfModelLoader, ErrorsNameTheSectionsKey) {
  config::ModelConfig section;
  section.path = kTiny;
  section.override_config = {{"attention_dropout", 0.1}};
  EXPECT_EQ(testing::error_of([&] { load(section, "critic.model"); }),
            "critic.model.path=" + kTiny + ": " + kTiny +
                "/config.json with override_config: 'attention_dropout' is 0.1; verlpp trains "
                "without dropout (expected 0, or unset)");
  const testing::TempDir dir;
  section.override_config = nlohmann::json::object();
  section.hf_config_path = dir.path();
  EXPECT_NE(testing::error_of([&] {
              load(section, "critic.model");
            }).find("critic.model.hf_config_path=" + dir.path() + ": "),
            std::string::npos);
  // The config is there, the weights are not: the error names path.
  dir.file("config.json", read_json_file(kTiny + "/config.json", "config").dump());
  section.hf_config_path = dir.path();
  section.path = dir.path();
  EXPECT_NE(
      testing::error_of([&] { load(section, "model"); }).find("model.path=" + dir.path() + ": "),
      std::string::npos);
}

}  // namespace
}  // namespace verlpp::trainer
