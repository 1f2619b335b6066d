#include "verlpp/trainer/sft_loss.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <cmath>

namespace verlpp::trainer {
namespace {

// A model whose next-token distribution is the same everywhere and known by hand: every layer's
// output projections are zero, so the residual stream is the token embedding; every embedding is
// the all-ones vector, so the final RMSNorm gives ones / sqrt(1 + eps); row v of the (untied)
// lm_head is z_v / hidden, so logits = z / sqrt(1 + eps) with z = (0, ln 2, ln 3, 0):
// p = (1, 2, 3, 1) / 7.
model::CausalLM known_model() {
  model::ModelConfig c;
  c.architecture = model::Architecture::qwen3;
  c.vocab_size = 4;
  c.hidden_size = 8;
  c.intermediate_size = 8;
  c.num_hidden_layers = 1;
  c.num_attention_heads = 2;
  c.num_key_value_heads = 2;
  c.head_dim = 4;
  c.max_position_embeddings = 16;
  c.qk_norm = true;
  c.tie_word_embeddings = false;
  auto lm = model::CausalLM::random_init(c, 0, 0.0, at::kFloat);
  c10::AutoGradMode no_grad(false);
  for (auto& [name, p] : lm.named_parameters()) {
    if (name == "model.embed_tokens.weight") p.fill_(1.0);
    if (name == "lm_head.weight") {
      const double z[] = {0.0, std::log(2.0), std::log(3.0), 0.0};
      for (int v = 0; v < 4; ++v) p[v].fill_(z[v] / 8.0);
    }
  }
  return lm;
}

data::SftExample example(std::vector<std::int32_t> ids, std::vector<std::uint8_t> mask) {
  return {std::move(ids), std::move(mask)};
}

TEST(SftLoss, TokenMeanOverTheWholeStepByHand) {
  const auto lm = known_model();
  // Learned targets: tokens 1 and 2 of the first sequence, token 2 of the second (its first
  // token is never a target even though marked).
  const auto a = example({0, 1, 2, 3}, {0, 1, 1, 0});
  const auto b = example({2, 2, 0}, {1, 1, 0});
  EXPECT_EQ(learned_tokens(a), 2);
  EXPECT_EQ(learned_tokens(b), 1);
  const double scale = 1.0 / std::sqrt(1.0 + 1e-6);
  const double log_norm = std::log(1.0 + std::pow(2.0, scale) + std::pow(3.0, scale) + 1.0);
  const double nll1 = log_norm - scale * std::log(2.0), nll2 = log_norm - scale * std::log(3.0);
  const at::Device cpu(at::kCPU);
  // Micro-batches [a] and [b] of one step of 3 learned tokens.
  const double loss_a = sft_micro_loss(lm, pack_sft({&a}, cpu), 3.0).item<double>();
  const double loss_b = sft_micro_loss(lm, pack_sft({&b}, cpu), 3.0).item<double>();
  EXPECT_NEAR(loss_a, (nll1 + nll2) / 3.0, 1e-6);
  EXPECT_NEAR(loss_b, nll2 / 3.0, 1e-6);
  // One micro-batch holding both gives the step's token mean.
  const double both = sft_micro_loss(lm, pack_sft({&a, &b}, cpu), 3.0).item<double>();
  EXPECT_NEAR(both, (nll1 + 2 * nll2) / 3.0, 1e-6);
  EXPECT_NEAR(both, loss_a + loss_b, 1e-7);
}

TEST(SftLoss, PacksSequencesWithoutCrossingBoundaries) {
  const auto a = example({0, 1, 2}, {0, 1, 1});
  const auto b = example({3, 2}, {0, 1});
  const PackedSft p = pack_sft({&a, &b}, at::Device(at::kCPU));
  EXPECT_TRUE(at::equal(p.input_ids, at::tensor({0, 1, 2, 3, 2}, at::kLong)));
  EXPECT_TRUE(at::equal(p.position_ids, at::tensor({0, 1, 2, 0, 1}, at::kLong)));
  EXPECT_TRUE(at::equal(p.cu_seqlens, at::tensor({0, 3, 5}, at::kInt)));
  EXPECT_TRUE(at::equal(p.predict_at, at::tensor({0, 1, 3}, at::kLong)));
  EXPECT_TRUE(at::equal(p.targets, at::tensor({1, 2, 2}, at::kLong)));
}

TEST(SftLoss, GradientFlowsToTheWeights) {
  auto lm = known_model();
  lm.set_requires_grad(true);
  const auto a = example({0, 1, 2, 3}, {0, 1, 1, 0});
  sft_micro_loss(lm, pack_sft({&a}, at::Device(at::kCPU)), 2.0).backward();
  // d(loss)/dW[v, j] = Σ_targets (p_v − [v = target]) · h_j / 2 with h_j = scale for every j.
  const double scale = 1.0 / std::sqrt(1.0 + 1e-6);
  const double e[] = {1.0, std::pow(2.0, scale), std::pow(3.0, scale), 1.0};
  const double total = e[0] + e[1] + e[2] + e[3];
  for (const auto& [name, p] : lm.named_parameters()) {
    if (name != "lm_head.weight") continue;
    ASSERT_TRUE(p.grad().defined());
    for (int v = 0; v < 4; ++v) {
      const double expected = scale * (2 * e[v] / total - (v == 1) - (v == 2)) / 2.0;
      for (int j = 0; j < 8; ++j) {
        EXPECT_NEAR(p.grad()[v][j].item<double>(), expected, 1e-6) << "row " << v;
      }
    }
  }
}

}  // namespace
}  // namespace verlpp::trainer
