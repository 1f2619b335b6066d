// CUDA: Qwen3.5's RMSNorm kernels (kernels/rms_norm.h), forward and backward, against float64
// autograd of transformers' formulas (fp32 inputs: no roundings to mirror) and against those
// formulas in ATen on the same bf16 CUDA tensors (every rounding transformers makes), on a strided
// x like the query half of Qwen3.5's fused query/gate projection; through model::
// zero_centered_rms_norm / gated_rms_norm (the autograd function the models call). Also the
// binding's one-line error, which runs without a GPU.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/rms_norm.h"
#include "verlpp/model/layers/rms_norm.h"

namespace verlpp::kernels {
namespace {

constexpr double kEps = 1e-6;

// transformers' Qwen3_5RMSNorm / Qwen3_5RMSNormGated in ATen, in x's dtype.
at::Tensor zero_centered_reference(const at::Tensor& x, const at::Tensor& w) {
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor n = xf * at::rsqrt(xf.pow(2).mean(-1, true) + kEps);
  return (n * (w.to(at::kFloat) + 1.0)).to(x.scalar_type());
}

at::Tensor gated_reference(const at::Tensor& x, const at::Tensor& z, const at::Tensor& w) {
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor n = (xf * at::rsqrt(xf.pow(2).mean(-1, true) + kEps)).to(x.scalar_type());
  return ((w * n).to(at::kFloat) * at::silu(z.to(at::kFloat))).to(x.scalar_type());
}

struct Inputs {
  at::Tensor x, z, w, dy;
};

// x [T, H, d] as the first half of a [T, H, 2 d] projection (row stride 2 d), z and dy [T, H, d].
Inputs make_inputs(at::ScalarType dtype, int64_t T, int64_t H, int64_t d, bool gated) {
  at::Generator gen = make_generator(at::kCPU, 53);
  Inputs in;
  const at::Tensor wide = at::randn({T, H, 2 * d}, gen, at::kDouble) * 3.0;
  in.x = wide.to(at::kCUDA, dtype).narrow(2, 0, d);
  in.w = (at::randn({d}, gen, at::kDouble) * 0.5 + (gated ? 1.0 : 0.0)).to(at::kCUDA, dtype);
  in.z = gated ? (at::randn({T, H, d}, gen, at::kDouble) * 2.0).to(at::kCUDA, dtype) : at::Tensor();
  in.dy = at::randn({T, H, d}, gen, at::kDouble).to(at::kCUDA, dtype);
  return in;
}

// The kernel's (through model::) output and gradients [y, dx, dw, dz].
std::vector<at::Tensor> run_kernel(const Inputs& in) {
  const at::Tensor x = in.x.detach().requires_grad_(true);
  const at::Tensor w = in.w.detach().requires_grad_(true);
  const at::Tensor z = in.z.defined() ? in.z.detach().requires_grad_(true) : at::Tensor();
  const at::Tensor y = z.defined() ? model::gated_rms_norm(x, z, w, kEps)
                                   : model::zero_centered_rms_norm(x, w, kEps);
  y.backward(in.dy);
  return {y.detach(), x.grad(), w.grad(), z.defined() ? z.grad() : at::Tensor()};
}

// The same from `reference` run in `dtype` on `device`.
template <typename Reference>
std::vector<at::Tensor> run_reference(const Inputs& in, at::ScalarType dtype, Reference reference) {
  const at::Tensor x = in.x.to(dtype).detach().requires_grad_(true);
  const at::Tensor w = in.w.to(dtype).detach().requires_grad_(true);
  const at::Tensor z = in.z.defined() ? in.z.to(dtype).detach().requires_grad_(true) : at::Tensor();
  const at::Tensor y = reference(x, z, w);
  y.backward(in.dy.to(dtype));
  return {y.detach(), x.grad(), w.grad(), z.defined() ? z.grad() : at::Tensor()};
}

void expect_close(const std::vector<at::Tensor>& got, const std::vector<at::Tensor>& want,
                  double tolerance, const std::string& what) {
  const char* names[] = {"y", "dx", "dw", "dz"};
  for (size_t i = 0; i < got.size(); ++i) {
    if (!want[i].defined()) continue;
    ASSERT_TRUE(got[i].defined()) << what << " " << names[i];
    EXPECT_LT(model::testing::relative_diff(got[i], want[i]), tolerance) << what << " " << names[i];
  }
}

TEST(RmsNormGpu, MatchesFloat64AndTransformersRoundings) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  auto zero_centered = [](const at::Tensor& x, const at::Tensor&, const at::Tensor& w) {
    return zero_centered_reference(x, w);
  };
  auto gated = [](const at::Tensor& x, const at::Tensor& z, const at::Tensor& w) {
    return gated_reference(x, z, w);
  };
  // Shapes: Qwen3.5's q/k norm (d 256), the gated norm (dv 128), odd sizes, a hidden row (2048).
  const int64_t shapes[][3] = {{37, 3, 256}, {301, 16, 128}, {5, 2, 41}, {9, 1, 2048}};
  for (const auto& s : shapes) {
    for (const bool is_gated : {false, true}) {
      const std::string what =
          std::string(is_gated ? "gated" : "zero-centred") + " d " + std::to_string(s[2]);
      const Inputs f32 = make_inputs(at::kFloat, s[0], s[1], s[2], is_gated);
      if (!can_rms_norm(f32.x, f32.w, f32.z)) GTEST_SKIP() << "built without the kernel";
      const auto want64 = is_gated ? run_reference(f32, at::kDouble, gated)
                                   : run_reference(f32, at::kDouble, zero_centered);
      expect_close(run_kernel(f32), want64, 2e-6, what + " fp32 vs float64");

      const Inputs bf16 = make_inputs(at::kBFloat16, s[0], s[1], s[2], is_gated);
      const auto want = is_gated ? run_reference(bf16, at::kBFloat16, gated)
                                 : run_reference(bf16, at::kBFloat16, zero_centered);
      const auto got = run_kernel(bf16);
      expect_close(got, want, 8e-3, what + " bf16 vs transformers' roundings");
      // The forward rounds where transformers does: nearly every element is the same bits.
      const double equal = got[0].eq(want[0]).to(at::kDouble).mean().item<double>();
      EXPECT_GT(equal, 0.97) << what;
    }
  }
}

TEST(RmsNormGpu, WrongInputIsOneLineError) {
  try {
    rms_norm_forward(at::zeros({2, 3, 4}), at::zeros({4}), at::Tensor(), kEps);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rms norm kernel"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace verlpp::kernels
