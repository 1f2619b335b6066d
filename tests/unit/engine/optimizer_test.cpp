#include "verlpp/engine/optimizer.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "common/error_of.h"
#include "common/temp_dir.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"

namespace verlpp::engine {
namespace {

AdamWConfig config_with(double lr, double weight_decay, double clip) {
  AdamWConfig config;
  config.schedule.lr = lr;
  config.weight_decay = weight_decay;
  config.clip_grad = clip;
  return config;
}

at::Tensor parameter(std::vector<double> values, at::ScalarType dtype = at::kFloat) {
  return at::tensor(values, at::kDouble).to(dtype).set_requires_grad(true);
}

void set_grad(at::Tensor& p, std::vector<double> values) {
  p.mutable_grad() = at::tensor(values, at::kDouble).to(p.scalar_type());
}

TEST(Optimizer, OneAdamWStepByHand) {
  // AdamW (Loshchilov & Hutter; torch.optim.AdamW): p ← p − lr·wd·p, then m = (1−β1)g,
  // v = (1−β2)g², m̂ = g, v̂ = g², p ← p − lr·m̂/(√v̂ + eps) = 1 − 0.001 − 0.1·0.5/(0.5 + 1e-8).
  at::Tensor p = parameter({1.0});
  Optimizer optimizer({p}, config_with(0.1, 0.01, 10.0), 10);
  set_grad(p, {0.5});
  const StepResult result = optimizer.step();
  EXPECT_TRUE(result.applied);
  EXPECT_DOUBLE_EQ(result.grad_norm, 0.5);
  EXPECT_NEAR(p.item<double>(), 1.0 - 0.001 - 0.1 * 0.5 / (0.5 + 1e-8), 1e-7);
}

TEST(Optimizer, ClipsToClipGradBeforeTheMoments) {
  at::Tensor p = parameter({0.0, 0.0});
  Optimizer optimizer({p}, config_with(0.01, 0.0, 1.0), 10);
  set_grad(p, {3.0, 4.0});
  EXPECT_DOUBLE_EQ(optimizer.step().grad_norm, 5.0);
  set_grad(p, {0.3, 0.4});  // norm 0.5: not clipped
  EXPECT_NEAR(optimizer.step().grad_norm, 0.5, 1e-7);
  // Reference: the same two Adam steps with the first gradient scaled by 1 / (5 + 1e-6).
  const double b1 = 0.9, b2 = 0.999, lr = 0.01, eps = 1e-8;
  for (int i = 0; i < 2; ++i) {
    const double g1 = (i == 0 ? 3.0 : 4.0) / (5.0 + 1e-6), g2 = i == 0 ? 0.3 : 0.4;
    double m = (1 - b1) * g1, v = (1 - b2) * g1 * g1;
    double x = -lr * (m / (1 - b1)) / (std::sqrt(v / (1 - b2)) + eps);
    m = b1 * m + (1 - b1) * g2;
    v = b2 * v + (1 - b2) * g2 * g2;
    x -= lr * (m / (1 - b1 * b1)) / (std::sqrt(v / (1 - b2 * b2)) + eps);
    EXPECT_NEAR(p[i].item<double>(), x, 1e-7) << "coordinate " << i;
  }
}

TEST(Optimizer, Bf16ParametersKeepFp32MasterPrecision) {
  // 100 steps of constant gradient 1 move the fp32 master by ≈ 100 × 1e-4 = 0.01; each step alone
  // is below bf16's spacing at 1 (2^-8), so without masters the parameter would stay 1.0.
  at::Tensor p = parameter({1.0}, at::kBFloat16);
  Optimizer optimizer({p}, config_with(1e-4, 0.0, 10.0), 100);
  for (int i = 0; i < 100; ++i) {
    set_grad(p, {1.0});
    optimizer.step();
  }
  EXPECT_EQ(p.scalar_type(), at::kBFloat16);
  EXPECT_DOUBLE_EQ(p.item<double>(), 0.98828125);  // bf16 nearest to 0.99
}

// The same on CUDA, where gradients and masters cross dtypes in multi-tensor copies
// (compat::foreach_copy): a 1,000-element parameter (the vectorised path) ends where the scalar
// one does by hand, and a parameter without a gradient keeps its value.
TEST(Optimizer, Bf16OnGpuKeepsFp32MasterPrecision) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Tensor p = at::ones({1000}, at::dtype(at::kBFloat16).device(at::kCUDA)).requires_grad_(true);
  at::Tensor idle = at::full({3}, 0.5, p.options()).requires_grad_(true);
  Optimizer optimizer({p, idle}, config_with(1e-4, 0.0, 100.0), 100);
  for (int i = 0; i < 100; ++i) {
    p.mutable_grad() = at::ones_like(p);
    optimizer.step();
  }
  EXPECT_EQ(p.scalar_type(), at::kBFloat16);
  EXPECT_DOUBLE_EQ(p.min().item<double>(), 0.98828125);
  EXPECT_DOUBLE_EQ(p.max().item<double>(), 0.98828125);
  EXPECT_DOUBLE_EQ(idle.min().item<double>(), 0.5);
}

TEST(Optimizer, NonFiniteGradientSkipsTheUpdate) {
  at::Tensor p = parameter({2.0});
  Optimizer optimizer({p}, config_with(0.1, 0.0, 1.0), 10);
  set_grad(p, {std::nan("")});
  const StepResult result = optimizer.step();
  EXPECT_FALSE(result.applied);
  EXPECT_TRUE(std::isnan(result.grad_norm));
  EXPECT_DOUBLE_EQ(p.item<double>(), 2.0);
  EXPECT_FALSE(p.grad().defined());
}

TEST(Optimizer, LearningRateFollowsTheSchedule) {
  AdamWConfig config = config_with(1.0, 0.0, 1.0);
  config.schedule.lr_warmup_steps = 2;
  at::Tensor p = parameter({0.0});
  Optimizer optimizer({p}, config, 10);
  EXPECT_DOUBLE_EQ(optimizer.lr(), 0.0);
  optimizer.advance_lr();
  EXPECT_DOUBLE_EQ(optimizer.lr(), 0.5);
}

TEST(Optimizer, SaveAndLoadContinueIdentically) {
  const auto dir = std::filesystem::temp_directory_path() / "verlpp_optim_test";
  std::error_code error;  // the error_code overload (see trainer/checkpoint_dir.cpp rotate)
  std::filesystem::remove_all(dir, error);
  std::filesystem::create_directories(dir);
  const std::string path = dir.string();
  at::Tensor a = parameter({1.0, -1.0});
  Optimizer first({a}, config_with(0.05, 0.01, 1.0), 10);
  set_grad(a, {0.2, 0.1});
  first.step();
  first.advance_lr();
  first.save(path);
  EXPECT_TRUE(std::filesystem::is_regular_file(dir / "optim_world_size_1_rank_0.safetensors"));
  at::Tensor b = parameter({0.0, 0.0});
  Optimizer second({b}, config_with(0.05, 0.01, 1.0), 10);
  second.load(path);
  EXPECT_TRUE(at::equal(a, b));
  set_grad(a, {-0.3, 0.4});
  set_grad(b, {-0.3, 0.4});
  first.step();
  second.step();
  EXPECT_TRUE(at::equal(a, b));
  at::Tensor wrong = parameter({0.0, 0.0, 0.0});
  Optimizer third({wrong}, config_with(0.05, 0.01, 1.0), 10);
  EXPECT_THROW(third.load(path), Error);
  EXPECT_THROW(third.load(path + ".missing"), Error);
  std::filesystem::remove_all(dir, error);
}

// A state saved over 2 ranks whose rank-0 file is gone is named as that file (bt12: the message
// named a world-size-1 file that never existed); a folder without any shard names both.
TEST(Optimizer, AMissingShardIsNamedWithTheWorldItWasSavedOver) {
  const verlpp::testing::TempDir temp;
  at::Tensor a = parameter({1.0, -1.0});
  Optimizer saved({a}, config_with(0.05, 0.01, 1.0), 10);
  saved.save(temp.path());
  std::filesystem::create_directories(temp.path("two"));
  std::filesystem::copy_file(temp.path("optim_world_size_1_rank_0.safetensors"),
                             temp.path("two/optim_world_size_2_rank_1.safetensors"));
  Optimizer loader({parameter({0.0, 0.0})}, config_with(0.05, 0.01, 1.0), 10);
  EXPECT_EQ(verlpp::testing::error_of([&] { loader.load(temp.path("two")); }),
            "cannot read optimizer state " +
                temp.path("two/optim_world_size_2_rank_0.safetensors") +
                ": no such file (the state was saved over 2 ranks)");
  std::filesystem::create_directories(temp.path("none"));
  EXPECT_EQ(verlpp::testing::error_of([&] { loader.load(temp.path("none")); }),
            "cannot read optimizer state " +
                temp.path("none/optim_world_size_1_rank_0.safetensors") +
                ": no such file (nor optim_world_size_W_rank_0 of another world size W)");
}

// torch.optim.AdamW skips a parameter whose grad is None: it keeps its value (no weight decay)
// and its step count; its first update, whenever it comes, is a first step (t = 1):
// p = 2·(1 − 0.1·0.01) − 0.1·g/(|g| + 1e-8) with g = −0.25, however many steps the others took.
TEST(Optimizer, ParametersWithoutAGradientAreLeftAsTheyAre) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("verlpp_optim_skip_" + std::to_string(::getpid()));
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  std::filesystem::create_directories(dir);
  at::Tensor used = parameter({1.0}), unused = parameter({2.0});
  Optimizer optimizer({used, unused}, config_with(0.1, 0.01, 10.0), 10);
  for (int step = 0; step < 3; ++step) {
    set_grad(used, {0.5});
    EXPECT_TRUE(optimizer.step().applied);
    optimizer.zero_grad();
  }
  EXPECT_EQ(unused.item<double>(), 2.0);
  optimizer.save(dir.string());
  at::Tensor used2 = parameter({0.0}), unused2 = parameter({0.0});
  Optimizer resumed({used2, unused2}, config_with(0.1, 0.01, 10.0), 10);
  resumed.load(dir.string());
  set_grad(unused2, {-0.25});
  resumed.step();
  EXPECT_NEAR(unused2.item<double>(), 2.0 * (1 - 0.001) + 0.1 * 0.25 / (0.25 + 1e-8), 1e-6);
  EXPECT_EQ(used2.item<double>(), used.item<double>());
  std::filesystem::remove_all(dir, error);
}

// The fused CUDA AdamW kernel against the _foreach formula on CPU (checked by hand above), over
// several steps with weight decay and clipping.
TEST(Optimizer, FusedCudaUpdateMatchesTheCpuFormula) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::manual_seed(3);
  const at::Tensor init = at::randn({64, 33});
  const AdamWConfig config = config_with(1e-2, 0.1, 1.0);
  at::Tensor cpu = init.clone().set_requires_grad(true);
  at::Tensor gpu = init.cuda().set_requires_grad(true);
  Optimizer cpu_optimizer({cpu}, config, 10);
  Optimizer gpu_optimizer({gpu}, config, 10);
  for (int step = 0; step < 5; ++step) {
    const at::Tensor grad = at::randn({64, 33});
    cpu.mutable_grad() = grad;
    gpu.mutable_grad() = grad.cuda();
    EXPECT_NEAR(cpu_optimizer.step().grad_norm, gpu_optimizer.step().grad_norm, 1e-4);
    cpu_optimizer.zero_grad();
    gpu_optimizer.zero_grad();
  }
  EXPECT_LE((cpu - gpu.cpu()).abs().max().item<double>(), 1e-5);
}

}  // namespace
}  // namespace verlpp::engine
