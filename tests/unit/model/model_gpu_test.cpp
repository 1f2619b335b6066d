// CUDA bf16: verlpp's logits (flash attention on packed sequences) against transformers' fp32 CPU
// logits, within the difference transformers itself shows between its fp32 and bf16 runs
// (reference.json bf16_tolerance, measured on a GPU by tools/make_model_fixtures.py). Skips
// without a GPU.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <iostream>

#include "model_fixture.h"
#include "verlpp/core/device.h"
#include "verlpp/core/torch_compat.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/logprob.h"

namespace verlpp::model {
namespace {

class ModelGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelGpu, Bf16LogitsWithinTransformersOwnBf16Difference) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto& entry = testing::reference_json()["models"][GetParam()];
  if (!entry.contains("bf16_tolerance")) GTEST_SKIP() << "fixtures made without a GPU";
  const double tolerance = entry["bf16_tolerance"].get<double>();
  const auto ref = testing::reference_tensors(GetParam());
  const CausalLM m = CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kBFloat16,
                                               at::Device(at::kCUDA, 0));
  at::Tensor hidden;
  {
    c10::AutoGradMode no_grad(false);
    hidden = m.forward_packed(ref.at("input_ids"), ref.at("position_ids"), ref.at("cu_seqlens"));
  }
  const double diff = testing::max_abs_diff(m.logits(hidden).to(at::kFloat), ref.at("logits"));
  std::cout << "bf16 " << GetParam()
            << ": verlpp max|logits_bf16 - logits_fp32(transformers)| = " << diff
            << ", transformers' own = " << tolerance
            << (compat::has_flash_attention_varlen() ? " (flash varlen)" : " (eager)") << "\n";
  EXPECT_LE(diff, tolerance);
}

TEST_P(ModelGpu, Bf16BackwardThroughFlashAttentionIsFinite) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto ref = testing::reference_tensors(GetParam());
  CausalLM m = CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kBFloat16,
                                         at::Device(at::kCUDA, 0));
  m.set_requires_grad(true);
  m.set_gradient_checkpointing(true);
  const at::Tensor hidden =
      m.forward_packed(ref.at("input_ids"), ref.at("position_ids"), ref.at("cu_seqlens"));
  const auto r =
      chunked_logprob_entropy(hidden, m.lm_head_weight(), ref.at("targets"), 1.0, true, 8);
  (-(r.logprobs.cpu() * ref.at("loss_mask")).sum()).backward();
  for (const auto& [name, p] : m.named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_TRUE(p.grad().isfinite().all().item<bool>()) << name;
  }
  // The fp32 CPU reference's gradient direction is kept in bf16 (cosine > 0.99) for lm_head/embed.
  CausalLM cpu =
      CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kFloat, at::kCPU);
  cpu.set_requires_grad(true);
  const auto rc = chunked_logprob_entropy(
      cpu.forward_packed(ref.at("input_ids"), ref.at("position_ids"), ref.at("cu_seqlens")),
      cpu.lm_head_weight(), ref.at("targets"), 1.0, true, 8);
  (-(rc.logprobs * ref.at("loss_mask")).sum()).backward();
  const at::Tensor g =
      m.named_parameters().front().second.grad().to(at::kCPU, at::kDouble).flatten();
  const at::Tensor gc = cpu.named_parameters().front().second.grad().to(at::kDouble).flatten();
  EXPECT_GT((g.dot(gc) / (g.norm() * gc.norm())).item<double>(), 0.99);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ModelGpu, ::testing::ValuesIn(testing::fixture_models()));

}  // namespace
}  // namespace verlpp::model
