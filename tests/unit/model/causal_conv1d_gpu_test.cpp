// CUDA: verlpp's causal depthwise conv + SiLU kernels (kernels/causal_conv1d.h) against the formula
// written out in float64 on the CPU from the same rounded inputs, forward and gradients (float64
// autograd), for packed sequences shorter and longer than the window, in fp32 and bf16. Also the
// binding's one-line error, which runs without a GPU.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/causal_conv1d.h"

namespace verlpp::kernels {
namespace {

// silu(sum_j w[c, j] x[t - (K-1) + j, c]) over the taps inside t's sequence, float64 [T, C].
at::Tensor reference(const at::Tensor& x, const at::Tensor& w,
                     const std::vector<int64_t>& lengths) {
  const int64_t C = x.size(1), K = w.size(2);
  std::vector<at::Tensor> outputs;
  int64_t start = 0;
  for (const int64_t len : lengths) {
    if (len == 0) continue;
    const at::Tensor seq = at::cat({at::zeros({K - 1, C}, x.options()), x.narrow(0, start, len)});
    at::Tensor pre = at::zeros({len, C}, x.options());
    for (int64_t j = 0; j < K; ++j) pre = pre + seq.narrow(0, j, len) * w.select(2, j).view({1, C});
    outputs.push_back(at::silu(pre));
    start += len;
  }
  return at::cat(outputs);
}

at::Tensor offsets_of(const std::vector<int64_t>& lengths) {
  std::vector<int64_t> offsets;
  for (const int64_t len : lengths)
    for (int64_t i = 0; i < len; ++i) offsets.push_back(i);
  return at::tensor(offsets, at::kLong);
}

TEST(CausalConv1dGpu, ForwardAndGradientsMatchFloat64) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const std::vector<int64_t> lengths = {1, 3, 0, 130, 64, 2};
  const int64_t T = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
  const int64_t C = 200, K = 4;
  at::Generator gen = make_generator(at::kCPU, 13);
  const at::Tensor offsets = offsets_of(lengths).to(at::kCUDA);
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    const at::Tensor x = at::randn({T, C}, gen, at::kDouble).to(dtype);
    const at::Tensor w = (at::randn({C, 1, K}, gen, at::kDouble) * 0.5).to(dtype);
    const at::Tensor dout = at::randn({T, C}, gen, at::kDouble).to(dtype);
    if (!can_causal_conv1d(x.cuda(), w.cuda())) GTEST_SKIP() << "built without the kernel";
    const at::Tensor xr = x.to(at::kDouble).requires_grad_(true);
    const at::Tensor wr = w.to(at::kDouble).requires_grad_(true);
    const at::Tensor want = reference(xr, wr, lengths);
    (want * dout.to(at::kDouble)).sum().backward();
    const at::Tensor out = causal_conv1d_silu(x.cuda(), w.cuda(), offsets).cpu();
    const CausalConv1dGrad grad =
        causal_conv1d_silu_backward(x.cuda(), w.cuda(), offsets, dout.cuda());
    // fp32: one fp32 sum; bf16: the conv output and silu each rounded once to bf16 (2^-8), and the
    // gradients' dpre kept in fp32 then dx rounded once.
    const double tol = dtype == at::kFloat ? 1e-6 : 8e-3;
    EXPECT_LT(model::testing::relative_diff(out, want.detach()), tol) << dtype;
    EXPECT_LT(model::testing::relative_diff(grad.x.cpu(), xr.grad()), tol) << dtype;
    EXPECT_LT(model::testing::relative_diff(grad.weight.cpu(), wr.grad()), tol) << dtype;
    EXPECT_EQ(grad.weight.sizes(), w.sizes());
  }
}

// The decode step's update: three sequences in slots 2, 0 and 3 of four, one column at a time from
// empty windows, against the full convolution of each sequence; slot 1 stays bit-identical.
TEST(CausalConv1dGpu, UpdateMatchesTheFullConvolution) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const int64_t C = 70, K = 4, steps = 6;
  const std::vector<int64_t> slot_ids = {2, 0, 3};
  const auto N = static_cast<int64_t>(slot_ids.size());
  at::Generator gen = make_generator(at::kCPU, 17);
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    const at::Tensor x = at::randn({N, steps, C}, gen, at::kDouble).to(dtype);
    const at::Tensor w = (at::randn({C, 1, K}, gen, at::kDouble) * 0.5).to(dtype);
    const at::Tensor untouched = at::randn({C, K - 1}, gen, at::kDouble).to(dtype);
    at::Tensor windows = at::zeros({4, C, K - 1}, at::TensorOptions().dtype(dtype));
    windows[1].copy_(untouched);
    windows = windows.cuda();
    const at::Tensor slots = at::tensor(slot_ids, at::kLong).cuda();
    if (!can_causal_conv1d_update(x[0].cuda(), w.cuda(), windows)) GTEST_SKIP() << "no kernel";
    const double tol = dtype == at::kFloat ? 1e-6 : 8e-3;
    for (int64_t t = 0; t < steps; ++t) {
      const at::Tensor out =
          causal_conv1d_update(x.select(1, t).contiguous().cuda(), w.cuda(), windows, slots).cpu();
      for (int64_t n = 0; n < N; ++n) {
        const at::Tensor want =
            reference(x[n].narrow(0, 0, t + 1).to(at::kDouble), w.to(at::kDouble), {t + 1});
        EXPECT_LT(model::testing::relative_diff(out[n], want[t]), tol)
            << dtype << " step " << t << " sequence " << n;
      }
    }
    EXPECT_TRUE(at::equal(windows[1].cpu(), untouched)) << dtype;
  }
}

TEST(CausalConv1dGpu, WrongInputIsOneLineError) {
  const at::Tensor x = at::zeros({5, 8});
  const at::Tensor w = at::zeros({8, 1, 4});
  try {
    causal_conv1d_silu(x, w, at::zeros({5}, at::kLong));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("causal conv1d kernel"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace verlpp::kernels
