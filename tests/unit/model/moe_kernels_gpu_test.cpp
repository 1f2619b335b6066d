// CUDA: verlpp's MoE kernels against independent references. The router (kernels/moe_route.h)
// against softmax and a stable descending sort in float64 (the same experts, ties to the lower
// expert; the weights within one rounding of the model dtype) and, unnormalised, bit for bit
// against at::softmax's fp32 probabilities (the order its header claims); the grouping
// (kernels/moe_group.h) against ATen's stable sort, tensor for tensor, over one and several
// chunks; the combine (kernels/moe_combine.h) against the slot-order fp32 sum in ATen, bit for
// bit in bf16; silu·mul on the halves of a fused gate/up product against at::silu(gate) * up, bit
// for bit; and sparse_moe with the kernels (no autograd) against its autograd path. The bindings'
// one-line errors run without a GPU.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/core/generator.h"
#include "verlpp/kernels/moe_combine.h"
#include "verlpp/kernels/moe_group.h"
#include "verlpp/kernels/moe_route.h"
#include "verlpp/kernels/silu_mul.h"
#include "verlpp/model/layers/moe.h"

namespace verlpp::kernels {
namespace {

// Logits on a grid of 1/64 in [-8, 8): exact in bf16, far enough apart that fp32 orders unequal
// probabilities as float64 does, and with many exact ties (the tie rule decides).
at::Tensor grid_logits(int64_t T, int64_t E, at::ScalarType dtype, at::Generator& gen) {
  return (at::randint(-512, 512, {T, E}, gen, at::kLong).to(at::kDouble) / 64.0)
      .to(at::kCUDA, dtype);
}

// Float64 router: experts by descending probability, equal ones in expert order.
std::tuple<at::Tensor, at::Tensor> reference_route(const at::Tensor& logits, int64_t k,
                                                   bool normalize) {
  const at::Tensor p = at::softmax(logits.to(at::kCPU, at::kDouble), -1);
  const auto [sorted, order] = at::sort(p, /*stable=*/true, /*dim=*/-1, /*descending=*/true);
  at::Tensor w = sorted.narrow(1, 0, k);
  if (normalize) w = w / w.sum(1, true);
  return {w, order.narrow(1, 0, k)};
}

TEST(MoeKernelsGpu, RouteMatchesFloat64Reference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Generator gen = make_generator(at::kCPU, 61);
  int64_t ties_at_the_boundary = 0;
  for (const auto dtype : {at::kBFloat16, at::kFloat}) {
    for (const auto& [E, k] : std::vector<std::pair<int64_t, int64_t>>{
             {128, 8}, {60, 8}, {256, 8}, {8, 2}, {512, 10}, {1024, 32}, {16, 1}}) {
      for (const bool normalize : {true, false}) {
        const at::Tensor logits = grid_logits(301, E, dtype, gen);
        if (!can_moe_route(logits, k)) GTEST_SKIP() << "built without the kernel";
        const MoeRoute got = moe_route(logits, k, normalize);
        const auto [want_w, want_e] = reference_route(logits, k, normalize);
        const std::string where = c10::toString(dtype) + std::string(" E ") + std::to_string(E) +
                                  " k " + std::to_string(k) + (normalize ? " normalised" : "");
        EXPECT_TRUE(at::equal(got.experts.cpu(), want_e)) << where;
        // One rounding to the dtype, after fp32 arithmetic a few ulps from float64.
        const double ulp = dtype == at::kBFloat16 ? 1.0 / 128 : 1e-5;
        const at::Tensor err = (got.weights.cpu().to(at::kDouble) - want_w).abs();
        EXPECT_TRUE(err.le(want_w * ulp + 1e-30).all().item<bool>())
            << where << ": worst relative error " << (err / want_w).max().item<double>();
        const at::Tensor p = at::softmax(logits.to(at::kCPU, at::kDouble), -1);
        const at::Tensor kth = p.gather(1, want_e.narrow(1, k - 1, 1));
        ties_at_the_boundary += (p == kth).sum(1).gt(1).sum().item<int64_t>();
      }
    }
  }
  EXPECT_GT(ties_at_the_boundary, 0) << "the tie rule was not exercised";
}

// Unnormalised weights are the probabilities themselves: bit-identical to ATen's fp32 softmax
// (rounded to the logits' dtype, as ATen's path rounds them).
TEST(MoeKernelsGpu, RouteProbabilitiesAreAtenSoftmaxBits) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Generator gen = make_generator(at::kCPU, 62);
  for (const auto dtype : {at::kBFloat16, at::kFloat}) {
    for (const int64_t E : {8, 60, 128, 256, 1024}) {
      const at::Tensor logits = (at::randn({97, E}, gen, at::kDouble) * 2.0).to(at::kCUDA, dtype);
      if (!can_moe_route(logits, 4)) GTEST_SKIP() << "built without the kernel";
      const MoeRoute got = moe_route(logits, 4, false);
      const at::Tensor aten = at::softmax(logits, -1, at::kFloat).gather(1, got.experts).to(dtype);
      EXPECT_TRUE(at::equal(got.weights, aten))
          << c10::toString(dtype) << " E " << E << ": "
          << got.weights.ne(aten).sum().item<int64_t>() << " weights differ";
    }
  }
}

// ATen's stable sort of the flattened experts: the grouping sparse_moe ran before the kernel.
ExpertGroups reference_groups(const at::Tensor& experts, int64_t E) {
  const at::Tensor flat = experts.reshape({-1});
  const at::Tensor order = std::get<1>(at::sort(flat, c10::optional<bool>(true), 0));
  const at::Tensor counts = at::bincount(flat, {}, E);
  return {counts.cumsum(0).to(at::kInt),
          at::empty_like(order).scatter_(0, order, at::arange(order.numel(), order.options())),
          order.div(experts.size(1), "floor")};
}

TEST(MoeKernelsGpu, GroupEqualsStableSort) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Generator gen = make_generator(at::kCPU, 63);
  // T k pairs: one chunk, a chunk and a bit, several, the most the kernel takes; E up to 1,024.
  for (const auto& [T, k, E] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 8, 128},
                                                                                  {64, 8, 128},
                                                                                  {65, 8, 128},
                                                                                  {300, 8, 256},
                                                                                  {1024, 8, 128},
                                                                                  {700, 1, 1000},
                                                                                  {93, 10, 1024},
                                                                                  {0, 8, 128},
                                                                                  {40, 4, 4}}) {
    // k distinct experts per token, as a top-k gives them; skewed, so some experts get none.
    const at::Tensor scores =
        at::rand({T, E}, gen, at::kDouble).pow(3.0) * at::linspace(1.0, 3.0, E, at::kDouble);
    const at::Tensor experts = std::get<1>(at::topk(scores, k, -1)).to(at::kCUDA);
    if (!can_moe_group(experts, E)) GTEST_SKIP() << "built without the kernel";
    const ExpertGroups got = moe_group(experts, E);
    const ExpertGroups want = reference_groups(experts, E);
    const std::string where =
        "T " + std::to_string(T) + " k " + std::to_string(k) + " E " + std::to_string(E);
    EXPECT_TRUE(at::equal(got.offsets, want.offsets)) << where;
    EXPECT_TRUE(at::equal(got.row_of_pair, want.row_of_pair)) << where;
    EXPECT_TRUE(at::equal(got.source_token, want.source_token)) << where;
  }
  EXPECT_FALSE(can_moe_group(at::zeros({kMoeGroupMaxPairs / 8 + 1, 8}, at::kLong).cuda(), 128));
}

TEST(MoeKernelsGpu, CombineIsTheSlotOrderFp32Sum) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Generator gen = make_generator(at::kCPU, 64);
  for (const auto dtype : {at::kBFloat16, at::kHalf, at::kFloat}) {
    for (const auto& [T, k, H] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {64, 8, 2048}, {7, 8, 100}, {33, 1, 24}, {5, 3, 8}}) {
      const at::Tensor y = at::randn({T * k, H}, gen, at::kDouble).to(at::kCUDA, dtype);
      const at::Tensor w = at::rand({T, k}, gen, at::kDouble).to(at::kCUDA, dtype);
      const at::Tensor rows = at::randperm(T * k, gen, at::kLong).to(at::kCUDA);
      if (!can_moe_combine(y, w, rows)) GTEST_SKIP() << "built without the kernel";
      const at::Tensor got = moe_combine(y, w, rows);
      const at::Tensor slots = y.index_select(0, rows).view({T, k, H}).to(at::kFloat);
      at::Tensor acc = at::zeros({T, H}, slots.options());
      for (int64_t j = 0; j < k; ++j)
        acc = acc + w.select(1, j).to(at::kFloat).unsqueeze(1) * slots.select(1, j);
      const std::string where = c10::toString(dtype) + std::string(" T ") + std::to_string(T) +
                                " k " + std::to_string(k) + " H " + std::to_string(H);
      if (dtype == at::kFloat) {  // fused multiply-adds against separate roundings
        EXPECT_LE(model::testing::max_abs_diff(got, acc), 1e-5) << where;
      } else {  // every product exact in fp32: the same sums
        EXPECT_TRUE(at::equal(got, acc.to(dtype))) << where;
      }
    }
  }
}

TEST(MoeKernelsGpu, SiluMulOfFusedGateUpHalvesIsAtenBits) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Generator gen = make_generator(at::kCPU, 65);
  for (const auto dtype : {at::kBFloat16, at::kFloat}) {
    for (const int64_t I : {768, 5}) {  // whole 16-byte vectors, and single elements
      const at::Tensor gate_up =
          (at::randn({37, 2 * I}, gen, at::kDouble) * 4.0).to(at::kCUDA, dtype);
      const at::Tensor gate = gate_up.narrow(1, 0, I);
      const at::Tensor up = gate_up.narrow(1, I, I);
      if (!can_silu_mul(gate, up)) GTEST_SKIP() << "built without the kernel";
      const at::Tensor got = silu_mul(gate, up);
      EXPECT_TRUE(got.is_contiguous());
      EXPECT_TRUE(at::equal(got, at::silu(gate) * up)) << c10::toString(dtype) << " I " << I;
    }
  }
}

TEST(MoeKernelsGpu, SparseMoeWithKernelsMatchesItsAutogradPath) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  at::Generator gen = make_generator(at::kCPU, 66);
  const int64_t E = 64, I = 96, H = 256;
  for (const auto dtype : {at::kBFloat16, at::kFloat}) {
    for (const bool normalize : {true, false}) {
      model::MoeWeights w;
      w.router = (at::randn({E, H}, gen, at::kDouble) * 0.1).to(at::kCUDA, dtype);
      w.gate_up_proj = (at::randn({E, 2 * I, H}, gen, at::kDouble) * 0.06).to(at::kCUDA, dtype);
      w.down_proj = (at::randn({E, H, I}, gen, at::kDouble) * 0.1).to(at::kCUDA, dtype);
      model::MoeConfig c;
      c.num_experts = E;
      c.num_experts_per_tok = 8;
      c.moe_intermediate_size = I;
      c.norm_topk_prob = normalize;
      const at::Tensor x = at::randn({50, H}, gen, at::kDouble).to(at::kCUDA, dtype);
      const at::Tensor with_autograd = model::sparse_moe(w, c, x).hidden;
      c10::AutoGradMode no_grad(false);
      const at::Tensor with_kernels = model::sparse_moe(w, c, x).hidden;
      const double scale = with_autograd.abs().max().item<double>();
      const double diff = model::testing::max_abs_diff(with_kernels, with_autograd);
      // The routing weights and the weighted sum round in another order: a rounding or two.
      EXPECT_LE(diff, scale * (dtype == at::kBFloat16 ? 2.0 / 128 : 1e-5))
          << c10::toString(dtype) << (normalize ? " normalised" : "") << ": " << diff;
    }
  }
}

TEST(MoeKernelsGpu, WrongInputIsOneLineError) {
  const auto expect_error = [](const auto& call, const std::string& kernel) {
    try {
      call();
      FAIL() << "expected an error from " << kernel;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(kernel + " kernel"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  expect_error([] { moe_route(at::zeros({4, 2000}), 8, true); }, "moe_route");
  expect_error([] { moe_group(at::zeros({4, 8}, at::kLong), 128); }, "moe_group");
  expect_error(
      [] {
        moe_combine(at::zeros({8, 4}), at::zeros({4, 2}), at::zeros({8}, at::kLong));
      },
      "moe_combine");
}

}  // namespace
}  // namespace verlpp::kernels
