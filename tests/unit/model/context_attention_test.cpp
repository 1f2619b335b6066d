// causal_attention_with_context (a prefill that continues sequences after cached tokens) against
// causal_attention over the whole sequences: the continued queries' outputs are the whole
// sequences' rows at the same positions. fp32 on the CPU (eager), and bf16 on CUDA where there is
// one (flash attention with separate key lengths) against fp32 eager on the same bf16 inputs.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/model/layers/attention.h"

namespace verlpp::model {
namespace {

SequenceLayout packed_layout(const std::vector<int64_t>& lengths, const at::Device& device) {
  std::vector<int64_t> cu = {0};
  for (const int64_t l : lengths) cu.push_back(cu.back() + l);
  return SequenceLayout::packed(at::tensor(cu, at::kLong), device);
}

TEST(ContextAttention, ContinuedQueriesEqualTheWholeSequencesRows) {
  std::vector<at::Device> devices = {at::kCPU};
  if (cuda_available()) devices.emplace_back(at::kCUDA);
  const std::vector<int64_t> context = {0, 12, 1, 30, 16};
  const std::vector<int64_t> chunk = {7, 20, 1, 3, 16};
  const int64_t heads = 4, kv_heads = 2, dim = 64;
  const double scale = 0.125;
  for (const at::Device& device : devices) {
    const at::ScalarType dtype = device.is_cuda() ? at::kBFloat16 : at::kFloat;
    at::Generator gen = at::detail::createCPUGenerator(11);
    std::vector<int64_t> whole;
    int64_t total = 0;
    for (size_t s = 0; s < context.size(); ++s) {
      whole.push_back(context[s] + chunk[s]);
      total += whole.back();
    }
    // Rounded to the test's dtype once, so that both paths read the same values.
    const at::Tensor q = at::randn({total, heads, dim}, gen).to(dtype);
    const at::Tensor k = at::randn({total, kv_heads, dim}, gen).to(dtype);
    const at::Tensor v = at::randn({total, kv_heads, dim}, gen).to(dtype);
    // The reference: fp32 eager attention over the whole sequences, on the CPU.
    const at::Tensor want_all =
        causal_attention(q.to(at::kFloat), k.to(at::kFloat), v.to(at::kFloat),
                         packed_layout(whole, at::kCPU), scale);
    std::vector<int64_t> chunk_rows;
    int64_t start = 0;
    for (size_t s = 0; s < context.size(); ++s) {
      for (int64_t i = context[s]; i < whole[s]; ++i) chunk_rows.push_back(start + i);
      start += whole[s];
    }
    const at::Tensor rows = at::tensor(chunk_rows, at::kLong);
    const at::Tensor got = causal_attention_with_context(
        q.index_select(0, rows).to(device), k.to(device), v.to(device),
        packed_layout(chunk, device), packed_layout(whole, device), scale);
    ASSERT_EQ(got.sizes(), (std::vector<int64_t>{rows.size(0), heads, dim}));
    const double err =
        (got.to(at::kCPU, at::kFloat) - want_all.index_select(0, rows)).abs().max().item<double>();
    // fp32: the same formula; bf16 flash: its output and its probabilities rounded to bf16
    // (relative 2^-8 each, on outputs |o| < 4).
    EXPECT_LE(err, device.is_cuda() ? 3e-2 : 1e-5) << device;
  }
}

TEST(ContextAttention, FewerKeysThanQueriesOrOtherSequenceCountsAreErrors) {
  const at::Tensor q = at::randn({4, 2, 8});
  const at::Tensor k = at::randn({3, 1, 8});
  EXPECT_THROW(causal_attention_with_context(q, k, k, packed_layout({4}, at::kCPU),
                                             packed_layout({3}, at::kCPU), 1.0),
               Error);
  EXPECT_THROW(causal_attention_with_context(q, k, k, packed_layout({2, 2}, at::kCPU),
                                             packed_layout({3}, at::kCPU), 1.0),
               Error);
}

}  // namespace
}  // namespace verlpp::model
