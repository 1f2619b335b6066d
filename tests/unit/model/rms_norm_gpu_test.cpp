// CUDA: the RMSNorm kernels (kernels/rms_norm.h: Llama's scaled norm, Qwen3.5's zero-centred and
// gated norms), forward and backward, against float64 autograd of transformers' formulas (fp32
// inputs: no roundings to mirror) and against those formulas in ATen on the same bf16 CUDA tensors
// (every rounding transformers makes), on a strided x like the query half of Qwen3.5's fused
// query/gate projection; through model::rms_norm / zero_centered_rms_norm / gated_rms_norm (the
// autograd functions the models call). The fused residual add and norm (model::add_rms_norm) and
// the silu·mul kernel (kernels/silu_mul.h) against the ATen ops they replace, bit for bit. Also
// the bindings' one-line errors, which run without a GPU.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/rms_norm.h"
#include "verlpp/kernels/silu_mul.h"
#include "verlpp/model/layers/rms_norm.h"

namespace verlpp::kernels {
namespace {

constexpr double kEps = 1e-6;

// transformers' LlamaRMSNorm / Qwen3_5RMSNorm / Qwen3_5RMSNormGated in ATen, in x's dtype.
at::Tensor scaled_reference(const at::Tensor& x, const at::Tensor& w) {
  const at::Tensor xf = x.to(at::kFloat);
  return w * (xf * at::rsqrt(xf.pow(2).mean(-1, true) + kEps)).to(x.scalar_type());
}

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
Inputs make_inputs(at::ScalarType dtype, int64_t T, int64_t H, int64_t d, RmsNormKind kind) {
  const bool gated = kind == RmsNormKind::gated;
  at::Generator gen = make_generator(at::kCPU, 53);
  Inputs in;
  const at::Tensor wide = at::randn({T, H, 2 * d}, gen, at::kDouble) * 3.0;
  in.x = wide.to(at::kCUDA, dtype).narrow(2, 0, d);
  const double center = kind == RmsNormKind::zero_centered ? 0.0 : 1.0;
  in.w = (at::randn({d}, gen, at::kDouble) * 0.5 + center).to(at::kCUDA, dtype);
  in.z = gated ? (at::randn({T, H, d}, gen, at::kDouble) * 2.0).to(at::kCUDA, dtype) : at::Tensor();
  in.dy = at::randn({T, H, d}, gen, at::kDouble).to(at::kCUDA, dtype);
  return in;
}

// The kernel's (through model::) output and gradients [y, dx, dw, dz].
at::Tensor model_norm(RmsNormKind kind, const at::Tensor& x, const at::Tensor& z,
                      const at::Tensor& w) {
  switch (kind) {
    case RmsNormKind::scaled:
      return model::rms_norm(x, w, kEps);
    case RmsNormKind::zero_centered:
      return model::zero_centered_rms_norm(x, w, kEps);
    case RmsNormKind::gated:
      return model::gated_rms_norm(x, z, w, kEps);
  }
  return at::Tensor();
}

at::Tensor reference_norm(RmsNormKind kind, const at::Tensor& x, const at::Tensor& z,
                          const at::Tensor& w) {
  switch (kind) {
    case RmsNormKind::scaled:
      return scaled_reference(x, w);
    case RmsNormKind::zero_centered:
      return zero_centered_reference(x, w);
    case RmsNormKind::gated:
      return gated_reference(x, z, w);
  }
  return at::Tensor();
}

const char* kind_name(RmsNormKind kind) {
  switch (kind) {
    case RmsNormKind::scaled:
      return "scaled";
    case RmsNormKind::zero_centered:
      return "zero-centred";
    case RmsNormKind::gated:
      return "gated";
  }
  return "";
}

std::vector<at::Tensor> run_kernel(const Inputs& in, RmsNormKind kind) {
  const at::Tensor x = in.x.detach().requires_grad_(true);
  const at::Tensor w = in.w.detach().requires_grad_(true);
  const at::Tensor z = in.z.defined() ? in.z.detach().requires_grad_(true) : at::Tensor();
  const at::Tensor y = model_norm(kind, x, z, w);
  y.backward(in.dy);
  return {y.detach(), x.grad(), w.grad(), z.defined() ? z.grad() : at::Tensor()};
}

// The same from transformers' formula run in `dtype`.
std::vector<at::Tensor> run_reference(const Inputs& in, at::ScalarType dtype, RmsNormKind kind) {
  const at::Tensor x = in.x.to(dtype).detach().requires_grad_(true);
  const at::Tensor w = in.w.to(dtype).detach().requires_grad_(true);
  const at::Tensor z = in.z.defined() ? in.z.to(dtype).detach().requires_grad_(true) : at::Tensor();
  const at::Tensor y = reference_norm(kind, x, z, w);
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
  // Shapes: Qwen3's q/k norm (d 128), Qwen3.5's (d 256), the gated norm (dv 128), odd sizes, hidden
  // rows (1024, 2048).
  const int64_t shapes[][3] = {
      {37, 3, 256}, {301, 16, 128}, {5, 2, 41}, {9, 1, 2048}, {64, 1, 1024}};
  for (const auto& s : shapes) {
    for (const RmsNormKind kind :
         {RmsNormKind::scaled, RmsNormKind::zero_centered, RmsNormKind::gated}) {
      const std::string what = std::string(kind_name(kind)) + " d " + std::to_string(s[2]);
      const Inputs f32 = make_inputs(at::kFloat, s[0], s[1], s[2], kind);
      if (!can_rms_norm(f32.x, f32.w, f32.z)) GTEST_SKIP() << "built without the kernel";
      expect_close(run_kernel(f32, kind), run_reference(f32, at::kDouble, kind), 2e-6,
                   what + " fp32 vs float64");

      const Inputs bf16 = make_inputs(at::kBFloat16, s[0], s[1], s[2], kind);
      const auto want = run_reference(bf16, at::kBFloat16, kind);
      const auto got = run_kernel(bf16, kind);
      expect_close(got, want, 8e-3, what + " bf16 vs transformers' roundings");
      // The forward rounds where transformers does: nearly every element is the same bits.
      const double equal = got[0].eq(want[0]).to(at::kDouble).mean().item<double>();
      EXPECT_GT(equal, 0.97) << what;
    }
  }
}

// A lane reads its groups of 8 elements with 16-byte loads where a group is aligned and element by
// element where not, summing in the same order: the same rows give the same bits from an aligned
// tensor and from one shifted by an element (odd row stride), and whatever rows share the call.
TEST(RmsNormGpu, RowBitsDoNotDependOnAlignmentOrBatch) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const c10::AutoGradMode no_grad(false);
  for (const at::ScalarType dtype : {at::kBFloat16, at::kFloat}) {
    for (const RmsNormKind kind :
         {RmsNormKind::scaled, RmsNormKind::zero_centered, RmsNormKind::gated}) {
      const Inputs in = make_inputs(dtype, 33, 1, 1024, kind);
      if (!can_rms_norm(in.x, in.w, in.z)) GTEST_SKIP() << "built without the kernel";
      const at::Tensor x = in.x.reshape({33, 1024}).contiguous();
      const at::Tensor z = in.z.defined() ? in.z.reshape({33, 1024}) : at::Tensor();
      const at::Tensor shifted = at::zeros({33, 1025}, x.options()).narrow(1, 1, 1024).copy_(x);
      const at::Tensor want = model_norm(kind, x, z, in.w);
      const std::string what = std::string(kind_name(kind)) + " " + c10::toString(dtype);
      EXPECT_TRUE(at::equal(model_norm(kind, shifted, z, in.w), want)) << what << " shifted";
      const at::Tensor one =
          model_norm(kind, x.narrow(0, 5, 1), z.defined() ? z.narrow(0, 5, 1) : z, in.w);
      EXPECT_TRUE(at::equal(one, want.narrow(0, 5, 1))) << what << " one row";
    }
  }
}

// Without autograd the residual add and the norm after it run as one kernel; its sum and norm are
// the bits of ATen's add followed by the plain norm, in bf16 and fp32, for both kinds.
TEST(RmsNormGpu, FusedAddIsBitIdenticalToAddThenNorm) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const c10::AutoGradMode no_grad(false);
  for (const at::ScalarType dtype : {at::kBFloat16, at::kFloat}) {
    for (const RmsNormKind kind : {RmsNormKind::scaled, RmsNormKind::zero_centered}) {
      const Inputs in = make_inputs(dtype, 77, 1, 1024, kind);
      if (!can_rms_norm(in.x, in.w, at::Tensor())) GTEST_SKIP() << "built without the kernel";
      const at::Tensor x = in.x.contiguous();
      const at::Tensor delta = in.dy * 4.0;
      const model::AddNorm fused = kind == RmsNormKind::scaled
                                       ? model::add_rms_norm(x, delta, in.w, kEps)
                                       : model::add_zero_centered_rms_norm(x, delta, in.w, kEps);
      const at::Tensor sum = x + delta;
      const std::string what = std::string(kind_name(kind)) + " " + c10::toString(dtype);
      EXPECT_TRUE(at::equal(fused.sum, sum)) << what;
      EXPECT_TRUE(at::equal(fused.normed, model_norm(kind, sum, at::Tensor(), in.w))) << what;
    }
  }
}

// silu(gate) * up in one kernel: the bits of ATen's silu and multiply, over values from -30 to 30
// (exp's whole useful range), an odd length and inputs that are not 16-byte aligned.
TEST(SiluMulGpu, IsBitIdenticalToAtenSiluTimesUp) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Generator gen = make_generator(at::kCPU, 61);
  for (const at::ScalarType dtype : {at::kBFloat16, at::kHalf, at::kFloat}) {
    for (const int64_t offset : {0, 1}) {
      const int64_t n = 3 * 4099;
      const at::Tensor both =
          (at::rand({2, n + offset}, gen, at::kDouble) * 60.0 - 30.0).to(at::kCUDA, dtype);
      const at::Tensor gate = both[0].narrow(0, offset, n);
      const at::Tensor up = both[1].narrow(0, offset, n) * 0.25;
      if (!can_silu_mul(gate, up)) GTEST_SKIP() << "built without the kernel";
      const at::Tensor want = at::silu(gate) * up;
      const at::Tensor got = silu_mul(gate.view({3, 4099}), up.view({3, 4099}));
      EXPECT_TRUE(at::equal(got.view({n}), want))
          << c10::toString(dtype) << " offset " << offset << ": "
          << got.view({n}).ne(want).sum().item<int64_t>() << " elements differ";
    }
  }
}

TEST(RmsNormGpu, WrongInputIsOneLineError) {
  try {
    rms_norm_forward(at::zeros({2, 3, 4}), at::zeros({4}), at::Tensor(), kEps, RmsNormKind::scaled);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rms norm kernel"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
  try {
    rms_norm_forward(at::zeros({2, 4}), at::zeros({4}), at::Tensor(), kEps, RmsNormKind::gated);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gate z must be given to the gated norm"),
              std::string::npos)
        << e.what();
  }
  try {
    add_rms_norm_forward(at::zeros({2, 4}), at::zeros({2, 5}), at::zeros({4}), kEps,
                         RmsNormKind::scaled);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("residual like x"), std::string::npos) << e.what();
  }
}

TEST(SiluMulGpu, WrongInputIsOneLineError) {
  try {
    silu_mul(at::zeros({2, 3}), at::zeros({3, 2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("silu_mul kernel"), std::string::npos) << what;
    EXPECT_NE(what.find("gate [2, 3]"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace verlpp::kernels
