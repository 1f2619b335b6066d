// fp32 master weights: bf16 loses updates below its resolution (2^-7 at 1.0); the fp32 master
// accumulates them. Values worked by hand.
#include "verlpp/model/master_weights.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "model_fixture.h"

namespace verlpp::model {
namespace {

TEST(MasterWeights, AccumulatesUpdatesBf16WouldLose) {
  CausalLM m =
      CausalLM::from_pretrained(testing::checkpoint_dir("qwen3_tied"), at::kBFloat16, at::kCPU);
  MasterWeights master(m);
  const auto& [name, norm] = master.parameters().back();  // model.norm.weight
  ASSERT_EQ(name, "model.norm.weight");
  EXPECT_EQ(norm.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(norm, m.named_parameters().back().second.to(at::kFloat)));
  {
    at::NoGradGuard no_grad;
    norm.fill_(1.0);
    for (int step = 0; step < 3; ++step) norm.add_(1e-3);  // 1.003: rounds to 1.0 in bf16
  }
  master.copy_to(m);
  EXPECT_EQ(m.named_parameters().back().second[0].item<float>(), 1.0f);
  EXPECT_NEAR(norm[0].item<float>(), 1.003f, 1e-6);
  {
    at::NoGradGuard no_grad;
    for (int step = 0; step < 4; ++step) norm.add_(1e-3);  // 1.007: nearest bf16 is 1 + 2^-7
  }
  master.copy_to(m);
  EXPECT_EQ(m.named_parameters().back().second[0].item<float>(), 1.0078125f);
}

TEST(MasterWeights, GradientsArriveInFp32) {
  CausalLM m = CausalLM::from_pretrained(testing::checkpoint_dir("qwen2"), at::kBFloat16, at::kCPU);
  m.set_requires_grad(true);
  const at::Tensor w = m.named_parameters()[1].second;
  (w.to(at::kFloat).sum() * 3.0).backward();  // d/dw = 3 everywhere (exact in bf16)
  MasterWeights master(m);
  master.gradients_from(m);
  const at::Tensor g = master.parameters()[1].second.grad();
  ASSERT_TRUE(g.defined());
  EXPECT_EQ(g.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(g, at::full_like(g, 3.0)));
  EXPECT_FALSE(master.parameters()[0].second.grad().defined());
}

}  // namespace
}  // namespace verlpp::model
