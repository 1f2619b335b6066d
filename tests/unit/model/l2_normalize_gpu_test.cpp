// CUDA: the l2 norm kernels (kernels/l2_normalize.h) against model::l2_normalize (ATen, on the
// same CUDA tensor cast to fp32, as transformers 5 normalises) scaled, on a strided view like the
// queries of a fused projection, from fp32 and bf16 inputs (both normalised in fp32: 1e-6); the
// backward against float64 autograd of x * rsqrt(sum(x^2) + 1e-6) * scale. Also the binding's
// one-line error, which runs without a GPU.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/l2_normalize.h"
#include "verlpp/model/layers/delta_rule.h"

namespace verlpp::kernels {
namespace {

TEST(L2NormalizeGpu, MatchesAtenForwardAndFloat64Backward) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const int64_t T = 37, H = 3, d = 40;
  const double scale = 0.3;
  at::Generator gen = make_generator(at::kCPU, 31);
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    // Rows of a wider [T, 2 H d] projection output: stride_t = 2 H d.
    const at::Tensor wide = at::randn({T, 2 * H * d}, gen, at::kDouble).to(at::kCUDA, dtype);
    const at::Tensor x = wide.narrow(1, H * d, H * d).view({T, H, d});
    if (!can_l2_normalize(x)) GTEST_SKIP() << "built without the kernel";
    const at::Tensor y = l2_normalize_fp32(x, scale);
    const at::Tensor want = model::l2_normalize(x.to(at::kFloat)) * scale;
    EXPECT_LT(model::testing::relative_diff(y, want), 1e-6) << dtype;
    const at::Tensor dy = at::randn({T, H, d}, gen, at::kDouble);
    const at::Tensor xr = x.cpu().to(at::kDouble).requires_grad_(true);
    (xr * at::rsqrt((xr * xr).sum(-1, true) + 1e-6) * scale * dy).sum().backward();
    const at::Tensor dx = l2_normalize_fp32_backward(x, dy.to(at::kCUDA, at::kFloat), scale);
    EXPECT_LT(model::testing::relative_diff(dx, xr.grad()), dtype == at::kFloat ? 1e-6 : 4e-3)
        << dtype;
  }
}

TEST(L2NormalizeGpu, WrongInputIsOneLineError) {
  try {
    l2_normalize_fp32(at::zeros({2, 3, 4}), 1.0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("l2 normalize kernel"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace verlpp::kernels
