// Parity with transformers (fixtures from tools/make_model_fixtures.py): fp32 CPU logits within
// 1e-4 max abs, gradients of the fixture's log-prob loss within 1e-4 relative; packed vs padded;
// gradient checkpointing; save/load round trip.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "model_fixture.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/logprob.h"
#include "verlpp/model/score.h"

namespace verlpp::model {
namespace {

using testing::max_abs_diff;
using testing::relative_diff;

class ModelParity : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ref_ = testing::reference_tensors(GetParam());
    temperature_ = testing::reference_json()["temperature"].get<double>();
    entropy_coeff_ = testing::reference_json()["entropy_coeff"].get<double>();
  }
  CausalLM load() const {
    return CausalLM::from_pretrained(testing::checkpoint_dir(GetParam()), at::kFloat, at::kCPU);
  }
  at::Tensor packed_hidden(const CausalLM& m) const {
    return m.forward_packed(ref_.at("input_ids"), ref_.at("position_ids"), ref_.at("cu_seqlens"));
  }
  // The fixture's loss: -mean(logprob) - entropy_coeff * mean(entropy) over loss_mask.
  at::Tensor loss(const CausalLM& m, int64_t chunk) const {
    const auto r = chunked_logprob_entropy(packed_hidden(m), m.lm_head_weight(), ref_.at("targets"),
                                           temperature_, true, chunk);
    const at::Tensor mask = ref_.at("loss_mask");
    return -(r.logprobs * mask).sum() / mask.sum() -
           entropy_coeff_ * (r.entropy * mask).sum() / mask.sum();
  }
  std::map<std::string, at::Tensor> ref_;
  double temperature_ = 1.0;
  double entropy_coeff_ = 0.0;
};

TEST_P(ModelParity, LogitsMatchTransformersFp32) {
  const CausalLM m = load();
  c10::AutoGradMode no_grad(false);
  const at::Tensor logits = m.logits(packed_hidden(m));
  const double diff = max_abs_diff(logits, ref_.at("logits"));
  std::cout << GetParam() << ": max |logits - transformers| = " << diff << "\n";
  EXPECT_LT(diff, 1e-4) << GetParam();
  const auto r = logprob_entropy_from_logits(logits, ref_.at("targets"), temperature_);
  EXPECT_LT(max_abs_diff(r.logprobs, ref_.at("logprobs")), 1e-4);
  EXPECT_LT(max_abs_diff(r.entropy, ref_.at("entropy")), 1e-4);
}

TEST_P(ModelParity, GradientsMatchTransformers) {
  CausalLM m = load();
  m.set_requires_grad(true);
  const at::Tensor l = loss(m, /*chunk=*/7);
  EXPECT_NEAR(l.item<double>(),
              testing::reference_json()["models"][GetParam()]["loss"].get<double>(), 1e-5);
  l.backward();
  int checked = 0;
  double worst = 0.0;
  for (const auto& [name, p] : m.named_parameters()) {
    const auto it = ref_.find("grad." + name);
    if (it == ref_.end()) continue;
    ASSERT_TRUE(p.grad().defined()) << name;
    const double rel = relative_diff(p.grad(), it->second);
    worst = std::max(worst, rel);
    EXPECT_LT(rel, 1e-4) << name;
    ++checked;
  }
  std::cout << GetParam() << ": worst relative gradient difference " << worst << " over " << checked
            << " parameters\n";
  EXPECT_EQ(checked, static_cast<int>(
                         testing::reference_json()["models"][GetParam()]["grad_params"].size()));
}

TEST_P(ModelParity, GradientCheckpointingGivesTheSameGradients) {
  CausalLM plain = load();
  CausalLM ckpt = load();
  plain.set_requires_grad(true);
  ckpt.set_requires_grad(true);
  ckpt.set_gradient_checkpointing(true);
  loss(plain, 1024).backward();
  loss(ckpt, 1024).backward();
  testing::expect_same_gradients(plain, ckpt, 1e-7);
}

TEST_P(ModelParity, PackedAndPaddedGiveTheSameLogProbs) {
  const CausalLM m = load();
  c10::AutoGradMode no_grad(false);
  const at::Tensor cu = ref_.at("cu_seqlens").to(at::kLong);
  const int64_t S = cu.size(0) - 1;
  const int64_t L = (cu.slice(0, 1) - cu.slice(0, 0, S)).max().item<int64_t>();
  // Left padding for the first half of the rows, right padding for the rest.
  at::Tensor ids = at::zeros({S, L}, at::kLong);
  at::Tensor mask = at::zeros({S, L}, at::kLong);
  std::vector<std::pair<int64_t, int64_t>> where;  // (row offset of token 0, length)
  for (int64_t s = 0; s < S; ++s) {
    const int64_t a = cu[s].item<int64_t>();
    const int64_t n = cu[s + 1].item<int64_t>() - a;
    const int64_t off = s % 2 == 0 ? L - n : 0;
    ids[s].narrow(0, off, n).copy_(ref_.at("input_ids").narrow(0, a, n));
    mask[s].narrow(0, off, n).fill_(1);
    where.emplace_back(off, n);
  }
  const at::Tensor padded = m.forward_padded(ids, mask);
  const at::Tensor packed = packed_hidden(m);
  const auto lp_packed =
      logprob_entropy_from_logits(m.logits(packed), ref_.at("targets"), temperature_).logprobs;
  for (int64_t s = 0; s < S; ++s) {
    const int64_t a = cu[s].item<int64_t>();
    const auto [off, n] = where[s];
    const at::Tensor h = padded[s].narrow(0, off, n);
    const auto lp =
        logprob_entropy_from_logits(m.logits(h), ref_.at("targets").narrow(0, a, n), temperature_)
            .logprobs;
    EXPECT_LT(max_abs_diff(lp, lp_packed.narrow(0, a, n)), 1e-5) << "sequence " << s;
  }
}

TEST_P(ModelParity, SaveAndReloadKeepsEveryTensor) {
  const CausalLM m = load();
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("verlpp_model_save_" + GetParam())).string();
  std::filesystem::remove_all(dir);
  m.save_pretrained(dir, at::kFloat, /*max_shard_bytes=*/100000);
  const CausalLM back = CausalLM::from_pretrained(dir, at::kFloat, at::kCPU);
  const auto a = m.named_parameters();
  const auto b = back.named_parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(at::equal(a[i].second, b[i].second)) << a[i].first;
  }
}

TEST_P(ModelParity, ScoreGivesTransformersLogProbs) {
  const CausalLM m = load();
  const at::Tensor cu = ref_.at("cu_seqlens").to(at::kLong);
  const at::Tensor ids = ref_.at("input_ids");
  std::vector<ScoreRequest> requests;
  for (int64_t s = 0; s + 1 < cu.size(0); ++s) {
    const int64_t a = cu[s].item<int64_t>();
    const int64_t b = cu[s + 1].item<int64_t>();
    // Prompt: the first two tokens; response: the rest.
    ScoreRequest r;
    for (int64_t t = a; t < b; ++t)
      (t < a + 2 ? r.prompt_ids : r.response_ids).push_back(ids[t].item<int64_t>());
    requests.push_back(r);
  }
  // A batch limit of 13 tokens splits the three sequences (7, 12, 5 tokens) over passes.
  const auto results = score(m, requests, temperature_, /*max_batch_tokens=*/13);
  ASSERT_EQ(results.size(), requests.size());
  const at::Tensor lp = ref_.at("logprobs");
  for (size_t s = 0; s < results.size(); ++s) {
    const int64_t a = cu[static_cast<int64_t>(s)].item<int64_t>();
    ASSERT_EQ(results[s].logprobs.size(), requests[s].response_ids.size());
    double sum = 0.0;
    for (size_t i = 0; i < results[s].logprobs.size(); ++i) {
      // The response token i is predicted at position a + 1 + i.
      const double expected = lp[a + 1 + static_cast<int64_t>(i)].item<double>();
      EXPECT_NEAR(results[s].logprobs[i], expected, 1e-4) << "sequence " << s << " token " << i;
      sum += expected;
    }
    EXPECT_NEAR(results[s].sum, sum, 1e-3);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ModelParity, ::testing::ValuesIn(testing::fixture_models()));

}  // namespace
}  // namespace verlpp::model
