// Qwen3.5 vision-language forward and gradients against transformers
// (tests/fixtures/model/qwen3_5_vl_images, tools/make_vl_fixtures.py): three sequences packed
// (one image; two images; text only), transformers running each alone in float64. fp32 CPU
// logits within 1.5 x transformers' own fp32 distance from that reference (at least 1e-5);
// gradients of -mean(logprobs) - 0.01 mean(entropy) (temperature 0.7), vision tower included,
// within 1e-4 relative (the fixture has no fp32 gradient gap of transformers' own to scale by);
// greedy generation with an image token-identical to transformers' generate.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "model_fixture.h"
#include "verlpp/core/error.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/logprob.h"
#include "verlpp/model/mrope_positions.h"
#include "verlpp/model/safetensors.h"

namespace verlpp::model {
namespace {

using testing::max_abs_diff;
using testing::relative_diff;

class Qwen3_5VlParity : public ::testing::Test {
 protected:
  void SetUp() override {
    ref_ = testing::reference_tensors("qwen3_5_vl_images");
    std::ifstream in(testing::fixture_dir() + "/qwen3_5_vl_images.json");
    meta_ = nlohmann::json::parse(in);
    const at::Tensor g = ref_.at("image_grid_thw");
    for (int64_t i = 0; i < g.size(0); ++i) {
      grids_.push_back({g[i][0].item<int64_t>(), g[i][1].item<int64_t>(), g[i][2].item<int64_t>()});
    }
  }
  CausalLM load() const {
    return CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_5_vl_images"), at::kFloat,
                                     at::kCPU, /*with_vision=*/true);
  }
  at::Tensor hidden(const CausalLM& m) const {
    return m.forward_packed_images(ref_.at("input_ids"), ref_.at("position_ids"),
                                   ref_.at("cu_seqlens"), {ref_.at("pixel_values"), grids_});
  }
  double logits_tolerance() const {
    return std::max(1e-5, 1.5 * meta_["fp32_vs_float64_logits_max_abs"].get<double>());
  }
  // transformers' in-memory name of a parameter of the ForConditionalGeneration class.
  static std::string reference_name(const std::string& name) {
    if (name.starts_with("model.visual.") || !name.starts_with("model.")) return "grad." + name;
    return "grad.model.language_model." + name.substr(6);
  }
  std::map<std::string, at::Tensor> ref_;
  nlohmann::json meta_;
  std::vector<std::array<int64_t, 3>> grids_;
};

TEST_F(Qwen3_5VlParity, LogitsWithImagesMatchTransformers) {
  const CausalLM m = load();
  ASSERT_TRUE(m.has_vision());
  const at::Tensor logits = m.logits(hidden(m));
  const double diff = max_abs_diff(logits, ref_.at("logits"));
  std::cout << "qwen3_5_vl_images: max |logits - transformers float64| = " << diff
            << " (transformers' own fp32: " << meta_["fp32_vs_float64_logits_max_abs"] << ")\n";
  EXPECT_LE(diff, logits_tolerance());
  const auto r = logprob_entropy_from_logits(logits, ref_.at("targets"), meta_["temperature"]);
  EXPECT_LE(max_abs_diff(r.logprobs, ref_.at("logprobs")), logits_tolerance());
  EXPECT_LE(max_abs_diff(r.entropy, ref_.at("entropy")), logits_tolerance());
}

TEST_F(Qwen3_5VlParity, GradientsThroughTheVisionTowerMatchTransformers) {
  CausalLM m = load();
  m.set_requires_grad(true);
  const double temperature = meta_["temperature"], coeff = meta_["entropy_coeff"];
  const auto r = chunked_logprob_entropy(hidden(m), m.lm_head_weight(), ref_.at("targets"),
                                         temperature, true, 32);
  const at::Tensor mask = ref_.at("loss_mask");
  const at::Tensor loss =
      -(r.logprobs * mask).sum() / mask.sum() - coeff * (r.entropy * mask).sum() / mask.sum();
  EXPECT_NEAR(loss.item<double>(), meta_["loss"].get<double>(), 1e-5);
  loss.backward();
  double worst = 0.0;
  int visual = 0;
  for (const auto& [name, p] : m.named_parameters()) {
    const auto it = ref_.find(reference_name(name));
    ASSERT_NE(it, ref_.end()) << "no reference gradient for " << name;
    ASSERT_TRUE(p.grad().defined()) << name;
    const double rel = relative_diff(p.grad(), it->second);
    worst = std::max(worst, rel);
    EXPECT_LE(rel, 1e-4) << name;
    visual += name.starts_with("model.visual.");
  }
  EXPECT_EQ(visual, 33);  // patch embedding 2, position table 1, 2 blocks x 12, merger 6
  std::cout << "qwen3_5_vl_images: worst relative gradient difference " << worst << " over "
            << m.named_parameters().size() << " parameters (" << visual
            << " of the vision tower)\n";
}

TEST_F(Qwen3_5VlParity, GreedyGenerationWithAnImageMatchesTransformers) {
  // transformers' generate (fp32, 10 tokens) from sequence 0's first 14 tokens, its image
  // included: prefill with the image's features and M-RoPE positions, then decode steps at
  // position index + rope_delta on every stream.
  const CausalLM m = load();
  c10::AutoGradMode no_grad(false);
  const nlohmann::json& greedy = meta_["greedy"];
  const std::vector<int64_t> prompt = greedy["prompt"], expected = greedy["tokens"];
  const auto L = static_cast<int64_t>(prompt.size());
  const std::array<int64_t, 3> grid = grids_[0];
  const ImageInputs image{ref_.at("pixel_values").narrow(0, 0, grid[0] * grid[1] * grid[2]),
                          {grid}};
  const MropePositions positions = mrope_positions(prompt, {grid}, 300, 2);
  testing::GenerationStorage state = testing::allocate_generation_state(m, 1, 64);
  const at::Tensor last = m.prefill(at::tensor(prompt, at::kLong), positions.positions,
                                    at::tensor(std::vector<int64_t>{0, L}), std::vector<int64_t>{0},
                                    state.view, &image)[L - 1];
  std::vector<int64_t> generated = {m.logits(last).argmax().item<int64_t>()};
  while (generated.size() < expected.size()) {
    const int64_t index = L + static_cast<int64_t>(generated.size()) - 1;
    const DecodeView view =
        slot_decode_view(at::tensor(std::vector<int64_t>{0}),
                         at::tensor(std::vector<int64_t>{index + 1}), 64, 1, index + 1, false);
    const at::Tensor h =
        m.decode(at::tensor(std::vector<int64_t>{generated.back()}),
                 at::tensor(std::vector<int64_t>{index + positions.rope_delta}), view, state.view);
    generated.push_back(m.logits(h)[0].argmax().item<int64_t>());
  }
  EXPECT_EQ(generated, expected);
}

TEST_F(Qwen3_5VlParity, MismatchedImagesAreErrors) {
  const CausalLM m = load();
  const std::vector<std::array<int64_t, 3>> two(grids_.begin(), grids_.begin() + 2);
  EXPECT_THROW(
      m.forward_packed_images(ref_.at("input_ids"), ref_.at("position_ids"), ref_.at("cu_seqlens"),
                              {ref_.at("pixel_values").narrow(0, 0, 44), two}),
      Error);  // 11 features for 17 pad tokens
  const CausalLM text =
      CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_5_vl_images"), at::kFloat, at::kCPU);
  EXPECT_FALSE(text.has_vision());
  EXPECT_THROW(text.forward_packed_images(ref_.at("input_ids"), ref_.at("position_ids"),
                                          ref_.at("cu_seqlens"), {ref_.at("pixel_values"), grids_}),
               Error);
  EXPECT_THROW(CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_5"), at::kFloat, at::kCPU,
                                         /*with_vision=*/true),
               Error);  // a text-only config has no vision_config
}

// A trained vision-language model saved by verlpp (a training checkpoint's huggingface folder)
// keeps the hub's layout: transformers' names (model.language_model.*, model.visual.*), text_config
// and vision_config, so that it reloads with its tower (resume) and the logits are unchanged.
TEST_F(Qwen3_5VlParity, SaveAndReloadKeepTheVisionLanguageLayout) {
  const CausalLM m = load();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "verlpp_vl_save_reload";
  std::filesystem::remove_all(dir);
  m.save_pretrained(dir.string(), at::kFloat);
  std::ifstream in(dir / "config.json");
  const auto config = nlohmann::json::parse(in);
  EXPECT_EQ(config["architectures"][0], "Qwen3_5ForConditionalGeneration");
  EXPECT_EQ(config["text_config"]["model_type"], "qwen3_5_text");
  EXPECT_EQ(config["vision_config"]["patch_size"], 4);
  EXPECT_EQ(config["image_token_id"], 300);
  const SafetensorsFile weights((dir / "model.safetensors").string());
  EXPECT_TRUE(weights.contains("model.language_model.embed_tokens.weight"));
  EXPECT_TRUE(weights.contains("model.visual.merger.linear_fc2.weight"));
  EXPECT_TRUE(weights.contains("lm_head.weight"));
  const CausalLM back = CausalLM::from_pretrained(dir.string(), at::kFloat, at::kCPU, true);
  EXPECT_TRUE(at::equal(back.logits(hidden(back)), m.logits(hidden(m))));
  CausalLM zeroed = CausalLM::random_init(back.config(), 5, 0.02, at::kFloat);
  ASSERT_TRUE(zeroed.has_vision());
  zeroed.load_weights(dir.string());
  for (const auto& [name, p] : zeroed.named_parameters()) {
    bool found = false;
    for (const auto& [other, q] : m.named_parameters()) {
      if (other == name) found = at::equal(p, q);
    }
    EXPECT_TRUE(found) << name << " differs after load_weights";
  }
  EXPECT_FALSE(CausalLM::from_pretrained(dir.string(), at::kFloat, at::kCPU).has_vision());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace verlpp::model
