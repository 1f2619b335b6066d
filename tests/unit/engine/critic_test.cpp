#include "verlpp/engine/critic.h"

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "actor_fixture.h"
#include "verlpp/core/error.h"

namespace verlpp::engine {
namespace {

using testing::kPrompt;
using testing::kResponse;

Critic make_critic(MicroBatching micro) {
  CriticSettings s;
  s.mini_batch_rows = 3;
  s.update_micro = micro;
  AdamWConfig optim;
  optim.schedule.lr = 1e-2;
  optim.clip_grad = 100;
  model::CausalLM trunk = testing::tiny_model();
  return Critic(trunk, init_value_head(16, 0.5, 3, at::kFloat, trunk.device()), s, optim, 5);
}

TEST(Critic, ValueIsTheHeadOnTheHiddenStateBeforeEachResponseToken) {
  const Critic critic = make_critic({});
  const data::Batch batch = testing::tiny_batch();
  const at::Tensor values = critic.compute_values(batch);
  c10::AutoGradMode no_grad(false);
  const at::Tensor mask = batch.tensor("attention_mask");
  for (std::int64_t i = 0; i < batch.size(); ++i) {
    const at::Tensor seq = batch.tensor("input_ids")[i].masked_select(mask[i].ne(0));
    const std::int64_t prompt_len = mask[i].slice(0, 0, kPrompt).sum().item<std::int64_t>();
    const at::Tensor hidden =
        critic.trunk().forward_padded(seq.unsqueeze(0), at::ones_like(seq).unsqueeze(0))[0];
    for (std::int64_t t = 0; t < kResponse; ++t) {
      const bool valid = mask[i][kPrompt + t].item<std::int64_t>() != 0;
      const double want = valid ? ((hidden[prompt_len + t - 1] * critic.head().weight[0]).sum() +
                                   critic.head().bias[0])
                                      .item<double>()
                                : 0.0;
      EXPECT_NEAR(values[i][t].item<double>(), want, 1e-5);
    }
  }
}

TEST(Critic, MicroBatchAccumulationEqualsOneBatchAndHeadRoundTrips) {
  Critic whole = make_critic({});
  Critic pieces = make_critic({1, {}});
  data::Batch batch = testing::tiny_batch();
  batch.set_tensor("values", whole.compute_values(batch));
  batch.set_tensor("returns", batch.tensor("advantages") + 0.5);
  const algo::Metrics a = whole.update_critic(batch);
  const algo::Metrics b = pieces.update_critic(batch);
  EXPECT_NEAR(a.at("critic/vf_loss"), b.at("critic/vf_loss"), 1e-6);
  EXPECT_NEAR(a.at("critic/grad_norm"), b.at("critic/grad_norm"), 1e-5);
  EXPECT_LT((whole.head().weight - pieces.head().weight).abs().max().item<double>(), 1e-6);

  const auto dir = std::filesystem::temp_directory_path() / "verlpp_critic_head_test";
  std::error_code error;  // the error_code overload (see trainer/checkpoint_dir.cpp rotate)
  std::filesystem::remove_all(dir, error);
  whole.save_head(dir);
  Critic fresh = make_critic({});
  fresh.load_head(dir);
  EXPECT_TRUE(at::equal(fresh.head().weight, whole.head().weight));
  std::filesystem::remove_all(dir / "value_head", error);
  EXPECT_THROW(fresh.load_head(dir), Error);
  std::filesystem::remove_all(dir, error);
}

}  // namespace
}  // namespace verlpp::engine
