#include "verlpp/trainer/flops.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace verlpp::trainer {
namespace {

// Qwen3-0.6B (tests/fixtures/models/qwen3-0.6b/config.json): h 1024, I 3072, V 151936, 28 layers,
// 16 heads, 8 KV heads, head_dim 128.
constexpr DecoderShape kQwen3_0_6B{1024, 3072, 151936, 28, 16, 8, 128};

TEST(Flops, Qwen3_0_6BByHand) {
  // Per layer: 3·1024·3072 = 9,437,184; attention 1024·(2·2048 + 2·1024) = 6,291,456;
  // × 28 = 440,401,920; + 2·151936·1024 = 311,164,928 → N = 751,566,848.
  // One sequence of 1,000 tokens: 6·N·1000 + 6·1000²·128·16·28.
  const double expected = 6.0 * 751566848.0 * 1000.0 + 6.0 * 1e6 * 128 * 16 * 28;
  EXPECT_DOUBLE_EQ(training_flops(kQwen3_0_6B, {1000}), expected);
  // Two sequences of 500 tokens: same dense part, half the attention part.
  EXPECT_DOUBLE_EQ(training_flops(kQwen3_0_6B, {500, 500}),
                   6.0 * 751566848.0 * 1000.0 + 6.0 * 2 * 250000.0 * 128 * 16 * 28);
}

// Qwen3-30B-A3B as verl's _estimate_qwen2_moe_flops counts it (models.md §6: N ≈ 3.35e9).
TEST(Flops, Qwen3_30B_A3BCountsTheTopKExpertsAndTheRouterOnEveryLayer) {
  model::ModelConfig c;
  c.architecture = model::Architecture::qwen3_moe;
  c.hidden_size = 2048;
  c.intermediate_size = 6144;
  c.vocab_size = 151936;
  c.num_hidden_layers = 48;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 4;
  c.head_dim = 128;
  c.moe.num_experts = 128;
  c.moe.num_experts_per_tok = 8;
  c.moe.moe_intermediate_size = 768;
  c.moe.mlp_only_layers = {0, 1};  // verl counts these as MoE layers too
  // Per layer: experts 2048·8·768·3 = 37,748,736; router 2048·128 = 262,144; attention
  // 2048·(2·4096 + 2·512) = 18,874,368; sum 56,885,248 × 48 = 2,730,491,904; + 2·151936·2048 =
  // 622,329,856 → N = 3,352,821,760.
  const double expected = 6.0 * 3352821760.0 * 1000.0 + 6.0 * 1e6 * 128 * 32 * 48;
  EXPECT_DOUBLE_EQ(training_flops(decoder_shape(c), {1000}), expected);
}

// Qwen3.5-35B-A3B (tests/fixtures/models/qwen3.5-35b-a3b, text_config) as verl's
// _estimate_qwen3_5_flops counts it (models.md §6: N ≈ 3.45e9, 0.24 GFLOP per token of GDN).
TEST(Flops, Qwen3_5_35B_A3BCountsLinearAndFullAttentionLayers) {
  const model::ModelConfig c = model::load_model_config(std::string(VERLPP_SOURCE_DIR) +
                                                        "/tests/fixtures/models/qwen3.5-35b-a3b");
  // full attention 2048·(2·16·256 + 2·2·256 + 16·256) = 27,262,976 (10 layers); linear
  // 2048·(2·2048 + 3·4096 + 2·32) + 4·(2·2048 + 4096) = 33,718,272 (30 layers); MoE
  // 2048·256 + 3·2048·512·8 + 3·2048·512 + 2048 = 28,837,888 (40 layers); embeddings
  // 2·248320·2048 = 1,017,118,720 → N = 3,454,812,160.
  const double n = 3454812160.0;
  const double expected =
      6.0 * n * 1000.0 + 6.0 * 1e6 * 256 * 16 * 10 + 15.0 * 128 * 128 * 32 * 1000.0 * 30;
  EXPECT_DOUBLE_EQ(training_flops(decoder_shape(c), {1000}), expected);
  // A text-only config (model_type qwen3_5_moe_text, which verl does not register: MFU 0 there)
  // is counted the same.
  const model::ModelConfig text =
      model::parse_model_config(model::model_config_to_json(c), "text config.json");
  ASSERT_EQ(model::model_config_to_json(text)["model_type"], "qwen3_5_moe_text");
  EXPECT_DOUBLE_EQ(training_flops(decoder_shape(text), {1000}), expected);
}

TEST(Flops, PeaksAndMfu) {
  EXPECT_DOUBLE_EQ(promised_flops("NVIDIA H200"), 989e12);
  EXPECT_DOUBLE_EQ(promised_flops("NVIDIA H20"), 148e12);
  EXPECT_DOUBLE_EQ(promised_flops("NVIDIA GB200"), 2.5e15);
  EXPECT_DOUBLE_EQ(promised_flops("cpu"), 0.0);
  // 989e12 FLOPs in 2 s on 2 H200s: 989e12 / 2 / 989e12 / 2 = 0.25.
  EXPECT_DOUBLE_EQ(mfu(989e12, 2.0, "NVIDIA H200", 2), 0.25);
  EXPECT_DOUBLE_EQ(mfu(1e12, 1.0, "cpu", 1), 0.0);
}

}  // namespace
}  // namespace verlpp::trainer
