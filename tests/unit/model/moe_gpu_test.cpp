// CUDA: Qwen3-MoE in bf16 against transformers' fp32 CPU logits within transformers' own
// bf16-vs-fp32 gap (reference_moe.json bf16_tolerance, measured on the H200 by
// tools/make_moe_fixtures.py; verlpp's logits as its log-prob passes compute them), and the
// grouped-GEMM experts (at::_grouped_mm, CUDA) against the per-expert loop (CPU) in fp32: logits
// and every gradient. Skips without a GPU.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/layers/moe.h"
#include "verlpp/model/logprob.h"

namespace verlpp::model {
namespace {

const at::Device kCuda(at::kCUDA, 0);

class MoeGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(MoeGpu, Bf16LogitsWithinTransformersOwnBf16Difference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const std::string ref_name = testing::moe_reference_name(GetParam());
  const auto& entry = testing::moe_reference_json()["models"][ref_name];
  if (!entry.contains("bf16_tolerance")) GTEST_SKIP() << "fixtures made without a GPU";
  const double tolerance = entry["bf16_tolerance"].get<double>();
  const auto ref = testing::reference_tensors(ref_name);
  const CausalLM m =
      CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kBFloat16, kCuda);
  c10::AutoGradMode no_grad(false);
  const at::Tensor hidden =
      m.forward_packed(ref.at("input_ids"), ref.at("position_ids"), ref.at("cu_seqlens"));
  // The logits verlpp's log-prob passes use: the bf16 lm-head GEMM writing fp32
  // (model/logprob.h); and, printed beside them, the logits rounded to bf16 (model.logits()).
  const at::Tensor logits = compat::mm_fp32(hidden, m.lm_head_weight().t());
  const double diff = testing::max_abs_diff(logits, ref.at("logits"));
  const double rounded = testing::max_abs_diff(m.logits(hidden).to(at::kFloat), ref.at("logits"));
  std::cout << "bf16 " << GetParam()
            << ": verlpp max|logits - logits_fp32(transformers)| = " << diff
            << " (rounded to bf16: " << rounded << "), transformers' own bf16 = " << tolerance
            << (compat::can_grouped_mm(hidden) ? " (grouped GEMM experts)" : " (expert loop)")
            << "\n";
  EXPECT_LE(diff, tolerance);
}

// fp32 on CUDA (grouped GEMMs) against fp32 on the CPU (the per-expert loop).
TEST_P(MoeGpu, GroupedExpertsMatchThePerExpertLoop) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto ref = testing::reference_tensors(testing::moe_reference_name(GetParam()));
  CausalLM cpu =
      CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kFloat, at::kCPU);
  CausalLM gpu = CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kFloat, kCuda);
  double worst_logits = 0, worst_grad = 0;
  for (CausalLM* m : {&cpu, &gpu}) {
    m->set_requires_grad(true);
    std::vector<at::Tensor> router;
    const at::Tensor h = m->forward_packed(ref.at("input_ids"), ref.at("position_ids"),
                                           ref.at("cu_seqlens"), &router);
    const auto r = chunked_logprob_entropy(h, m->lm_head_weight(), ref.at("targets").to(h.device()),
                                           1.0, true, 8);
    const at::Tensor aux = load_balancing_loss(router, m->config().moe.num_experts,
                                               m->config().moe.num_experts_per_tok);
    (-r.logprobs.mean() - 0.01 * r.entropy.mean() + 0.1 * aux).backward();
  }
  {
    c10::AutoGradMode no_grad(false);
    const at::Tensor a = cpu.logits(
        cpu.forward_packed(ref.at("input_ids"), ref.at("position_ids"), ref.at("cu_seqlens")));
    const at::Tensor b = gpu.logits(
        gpu.forward_packed(ref.at("input_ids"), ref.at("position_ids"), ref.at("cu_seqlens")));
    worst_logits = testing::max_abs_diff(a, b);
  }
  const auto pa = cpu.named_parameters();
  const auto pb = gpu.named_parameters();
  for (size_t i = 0; i < pa.size(); ++i) {
    ASSERT_TRUE(pb[i].second.grad().defined()) << pb[i].first;
    const double rel = testing::relative_diff(pb[i].second.grad(), pa[i].second.grad());
    worst_grad = std::max(worst_grad, rel);
    EXPECT_LT(rel, 1e-4) << pa[i].first;
  }
  std::cout << GetParam() << " fp32 CUDA (grouped GEMM) vs CPU (loop): max |logits diff| "
            << worst_logits << ", worst relative gradient difference " << worst_grad << "\n";
  EXPECT_LT(worst_logits, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MoeGpu, ::testing::ValuesIn(testing::moe_fixture_models()));

}  // namespace
}  // namespace verlpp::model
