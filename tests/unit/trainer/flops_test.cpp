#include "verlpp/trainer/flops.h"

#include <gtest/gtest.h>

namespace verlpp::trainer {
namespace {

// Qwen3-0.6B (tests/fixtures/models/qwen3-0.6b/config.json): h 1024, I 3072, V 151936, 28 layers,
// 16 heads, 8 KV heads, head_dim 128.
constexpr DenseDecoderShape kQwen3_0_6B{1024, 3072, 151936, 28, 16, 8, 128};

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
