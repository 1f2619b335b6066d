// CUDA: the decode step's input kernel (kernels/delta_rule_decode.h: delta_rule_decode_inputs)
// against the ATen ops it replaces, run on the same CUDA tensors (the cast, model::l2_normalize,
// the dk^-1/2 scale, the key heads repeated for their value heads, -exp(A_log) softplus(a +
// dt_bias), sigmoid(b)), in fp32 and bf16, with 2 value heads per key head and dk, dv not powers
// of two. Also the binding's one-line error, which runs without a GPU.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/delta_rule_decode.h"
#include "verlpp/model/layers/delta_rule.h"

namespace verlpp::kernels {
namespace {

TEST(DeltaRuleDecodeInputsGpu, MatchesTheAtenOps) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const int64_t N = 5, Hk = 2, Hv = 4, dk = 24, dv = 40;
  at::Generator gen = make_generator(at::kCPU, 23);
  for (const at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
    const auto cuda = [&](const at::Tensor& t) { return t.to(at::kCUDA, dtype).contiguous(); };
    const at::Tensor conv = cuda(at::randn({N, 2 * Hk * dk + Hv * dv}, gen, at::kDouble));
    const at::Tensor a = cuda(at::randn({N, Hv}, gen, at::kDouble) * 3);
    const at::Tensor b = cuda(at::randn({N, Hv}, gen, at::kDouble));
    const at::Tensor A_log = cuda(at::randn({Hv}, gen, at::kDouble));
    const at::Tensor dt_bias = cuda(at::randn({Hv}, gen, at::kDouble));
    if (!can_delta_rule_decode_inputs(conv, a, b, A_log, dt_bias)) GTEST_SKIP() << "no kernel";
    const DeltaRuleDecodeInputs in =
        delta_rule_decode_inputs(conv, a, b, A_log, dt_bias, Hk, dk, dv);
    const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
    const at::Tensor q =
        model::l2_normalize(conv.narrow(1, 0, Hk * dk).view({N, Hk, dk}).to(at::kFloat))
            .repeat_interleave(Hv / Hk, 1) *
        scale;
    const at::Tensor k =
        model::l2_normalize(conv.narrow(1, Hk * dk, Hk * dk).view({N, Hk, dk}).to(at::kFloat))
            .repeat_interleave(Hv / Hk, 1);
    const at::Tensor v = conv.narrow(1, 2 * Hk * dk, Hv * dv).view({N, Hv, dv}).to(at::kFloat);
    const at::Tensor g =
        -A_log.to(at::kFloat).exp() * at::softplus(a.to(at::kFloat) + dt_bias.to(at::kFloat));
    const at::Tensor beta = at::sigmoid(b).to(at::kFloat);
    // Both normalise in fp32 from the same values; only the order of the sum of squares differs.
    EXPECT_LT(model::testing::relative_diff(in.q, q), 1e-6) << dtype;
    EXPECT_LT(model::testing::relative_diff(in.k, k), 1e-6) << dtype;
    EXPECT_TRUE(at::equal(in.v.cpu(), v.cpu())) << dtype;
    EXPECT_LT(model::testing::relative_diff(in.g, g), 1e-6) << dtype;
    EXPECT_LT(model::testing::relative_diff(in.beta, beta), 1e-6) << dtype;
  }
}

TEST(DeltaRuleDecodeInputsGpu, WrongInputIsOneLineError) {
  const at::Tensor a = at::zeros({2, 4});
  try {
    delta_rule_decode_inputs(at::zeros({2, 10}), a, a, at::zeros({4}), at::zeros({4}), 2, 1, 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("delta rule decode inputs kernel"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace verlpp::kernels
