// CUDA: verlpp's split-KV decode attention kernel (kernels/decode_attention.h) against softmax
// attention written out in fp64 on the CPU from the same bf16/fp16-rounded inputs, over GQA group
// sizes 1, 2, 4 and 5, head_dim 64, 128 and 256, one split and many, and a sequence without keys.
// Also that model::decode_attention takes the kernel. Skips without a GPU or without the kernel.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "verlpp/core/device.h"
#include "verlpp/core/error.h"
#include "verlpp/kernels/decode_attention.h"
#include "verlpp/model/layers/attention.h"

namespace verlpp::kernels {
namespace {

struct Case {
  int64_t heads, kv_heads, head_dim, capacity;
  std::vector<int64_t> lengths;
  at::ScalarType dtype;
};

// out[n, h] = sum_t softmax_t(scale q[n, h] . k[start_n + t, h / G]) v[start_n + t, h / G] in fp64
// (zeros without keys).
at::Tensor reference(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     const std::vector<int64_t>& starts, const std::vector<int64_t>& lengths,
                     double scale) {
  const int64_t N = q.size(0), H = q.size(1), G = H / k.size(1);
  at::Tensor out = at::zeros(q.sizes(), at::kDouble);
  for (int64_t n = 0; n < N; ++n) {
    if (lengths[n] == 0) continue;
    for (int64_t h = 0; h < H; ++h) {
      const at::Tensor keys = k.narrow(0, starts[n], lengths[n]).select(1, h / G);
      const at::Tensor values = v.narrow(0, starts[n], lengths[n]).select(1, h / G);
      const at::Tensor weights = at::softmax(at::mv(keys, q[n][h]) * scale, 0);
      out[n][h].copy_(at::mv(values.t(), weights));
    }
  }
  return out;
}

class DecodeAttentionGpu : public ::testing::TestWithParam<Case> {};

TEST_P(DecodeAttentionGpu, MatchesFp64SoftmaxAttention) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const Case& c = GetParam();
  const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
  const int64_t N = static_cast<int64_t>(c.lengths.size());
  const int64_t rows = N * c.capacity;
  const at::Tensor probe_q = at::empty({1, c.heads, c.head_dim}, cuda.dtype(c.dtype));
  const at::Tensor probe_k = at::empty({1, c.kv_heads, c.head_dim}, cuda.dtype(c.dtype));
  if (!can_decode_attention(probe_q, probe_k)) GTEST_SKIP() << "no decode kernel in this build";
  at::Generator gen = at::detail::createCPUGenerator(11);
  // Rounded to the kernel's dtype first, so that both sides see the same inputs.
  const auto rounded = [&](at::IntArrayRef shape, double sd) {
    return (at::randn(shape, gen, at::kFloat) * sd).to(c.dtype).to(at::kDouble);
  };
  const at::Tensor k = rounded({rows, c.kv_heads, c.head_dim}, 1.0);
  const at::Tensor v = rounded({rows, c.kv_heads, c.head_dim}, 1.0);
  const at::Tensor q = rounded({N, c.heads, c.head_dim}, 1.0);
  // Sequences in reverse slot order, so that starts are not increasing.
  std::vector<int64_t> starts;
  for (int64_t n = 0; n < N; ++n) starts.push_back((N - 1 - n) * c.capacity);
  const double scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
  const at::Tensor want = reference(q, k, v, starts, c.lengths, scale);
  const auto int32 = cuda.dtype(at::kInt);
  const at::Tensor got =
      decode_attention(q.to(cuda.dtype(c.dtype)), k.to(cuda.dtype(c.dtype)),
                       v.to(cuda.dtype(c.dtype)), at::tensor(starts, at::kLong).to(int32),
                       at::tensor(c.lengths, at::kLong).to(int32), c.capacity, scale);
  EXPECT_EQ(got.scalar_type(), c.dtype);
  // One rounding of the output to bf16 (2^-9 relative) or fp16, plus fp32 sums: within 8e-3 of
  // max(1, |want|).
  const at::Tensor error = (got.cpu().to(at::kDouble) - want).abs() / want.abs().clamp_min(1.0);
  EXPECT_LT(error.max().item<double>(), 8e-3);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DecodeAttentionGpu,
    ::testing::Values(
        // Qwen3-0.6B heads; few blocks, so the keys are split (up to 8 ranges of 128).
        Case{16, 8, 128, 1024, {1, 300, 1000}, at::kBFloat16},
        // Qwen3.5-2B's gated attention: 8 heads over 2, head_dim 256.
        Case{8, 2, 256, 512, {1, 5, 130, 511}, at::kBFloat16},
        // No GQA, head_dim 64, fp16; a sequence without keys; lengths around the 4-key unroll.
        Case{8, 8, 64, 256, {7, 64, 0, 129, 2, 200, 3}, at::kHalf},
        // Group of 5 (Qwen3-14B's 40 / 8) over 300 sequences: enough blocks for one split.
        Case{40, 8, 128, 96,
             [] {
               std::vector<int64_t> l;
               for (int64_t i = 0; i < 300; ++i) l.push_back(1 + (i * 37) % 96);
               return l;
             }(),
             at::kBFloat16}));

TEST(DecodeAttentionKernelGpu, BadInputIsAnError) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto bf16 = at::TensorOptions().device(at::kCUDA, 0).dtype(at::kBFloat16);
  const at::Tensor q = at::zeros({2, 4, 128}, bf16);
  const at::Tensor cache = at::zeros({8, 2, 128}, bf16);
  if (!can_decode_attention(q, cache)) GTEST_SKIP() << "no decode kernel in this build";
  EXPECT_FALSE(can_decode_attention(q.to(at::kFloat), cache.to(at::kFloat)));
  EXPECT_FALSE(can_decode_attention(at::zeros({2, 4, 96}, bf16), at::zeros({8, 2, 96}, bf16)));
  EXPECT_FALSE(can_decode_attention(at::zeros({2, 36, 128}, bf16), cache));  // group of 18
  const at::Tensor lengths = at::ones({2}, bf16.dtype(at::kInt));
  EXPECT_THROW(decode_attention(q, cache, cache, lengths.to(at::kLong), lengths, 4, 1.0), Error);
  EXPECT_THROW(decode_attention(q, cache, cache, lengths.narrow(0, 0, 1), lengths, 4, 1.0), Error);
}

// The paged form: each sequence's keys in pages of 16 rows scattered over the cache in a shuffled
// order (block tables in CSR form), lengths within, at and across page ends and one without keys,
// against fp64 softmax attention over the rows the page table names.
TEST(DecodeAttentionKernelGpu, PagedMatchesFp64OverShuffledPages) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const auto cuda = at::TensorOptions().device(at::kCUDA, 0);
  const int64_t page = 16;
  const std::vector<int64_t> lengths = {1, 16, 17, 200, 0, 33};
  for (const auto& [heads, kv_heads, dim, dtype] :
       {std::tuple{16, 8, 128, at::kBFloat16}, std::tuple{40, 8, 64, at::kHalf},
        std::tuple{16, 2, 256, at::kBFloat16}}) {
    const at::Tensor probe_q = at::empty({1, heads, dim}, cuda.dtype(dtype));
    if (!can_decode_attention(probe_q, at::empty({1, kv_heads, dim}, cuda.dtype(dtype)))) {
      GTEST_SKIP() << "no decode kernel in this build";
    }
    std::vector<int64_t> offsets, pages;
    int64_t used = 0;
    for (const int64_t l : lengths) {
      offsets.push_back(static_cast<int64_t>(pages.size()));
      for (int64_t i = 0; i < (l + page - 1) / page; ++i) pages.push_back(used++);
    }
    const int64_t pool = used + 5;
    at::Generator gen = at::detail::createCPUGenerator(13);
    const at::Tensor order = at::randperm(pool, gen, at::kLong);  // page i -> a shuffled page
    for (int64_t& pg : pages) pg = order[pg].item<int64_t>();
    const auto rounded = [&](at::IntArrayRef shape) {
      return at::randn(shape, gen, at::kFloat).to(dtype).to(at::kDouble);
    };
    const at::Tensor k = rounded({pool * page, kv_heads, dim});
    const at::Tensor v = rounded({pool * page, kv_heads, dim});
    const auto N = static_cast<int64_t>(lengths.size());
    const at::Tensor q = rounded({N, heads, dim});
    const double scale = 1.0 / std::sqrt(static_cast<double>(dim));
    at::Tensor want = at::zeros(q.sizes(), at::kDouble);
    const int64_t G = heads / kv_heads;
    for (int64_t n = 0; n < N; ++n) {
      if (lengths[n] == 0) continue;
      std::vector<int64_t> rows;
      for (int64_t t = 0; t < lengths[n]; ++t)
        rows.push_back(pages[offsets[n] + t / page] * page + t % page);
      const at::Tensor index = at::tensor(rows, at::kLong);
      for (int64_t h = 0; h < heads; ++h) {
        const at::Tensor keys = k.index_select(0, index).select(1, h / G);
        const at::Tensor values = v.index_select(0, index).select(1, h / G);
        want[n][h].copy_(at::mv(values.t(), at::softmax(at::mv(keys, q[n][h]) * scale, 0)));
      }
    }
    const auto int32 = [&](const std::vector<int64_t>& x) {
      return at::tensor(x, at::kLong).to(cuda.dtype(at::kInt));
    };
    const at::Tensor got = decode_attention_paged(q.to(cuda.dtype(dtype)), k.to(cuda.dtype(dtype)),
                                                  v.to(cuda.dtype(dtype)), int32(pages),
                                                  int32(offsets), page, int32(lengths), 200, scale);
    const at::Tensor error = (got.cpu().to(at::kDouble) - want).abs() / want.abs().clamp_min(1.0);
    EXPECT_LT(error.max().item<double>(), 8e-3) << "heads " << heads << ", head_dim " << dim;
  }
  EXPECT_THROW(decode_attention_paged(at::zeros({1, 16, 128}, cuda.dtype(at::kBFloat16)),
                                      at::zeros({32, 8, 128}, cuda.dtype(at::kBFloat16)),
                                      at::zeros({32, 8, 128}, cuda.dtype(at::kBFloat16)),
                                      at::zeros({2}, cuda.dtype(at::kInt)),
                                      at::zeros({1}, cuda.dtype(at::kInt)), 12,
                                      at::ones({1}, cuda.dtype(at::kInt)), 4, 1.0),
               Error);  // 12 rows a page: not a power of two
}

// model::decode_attention (the rollout's decode step) reaches the kernel: the same result.
TEST(DecodeAttentionKernelGpu, KvCacheDecodeUsesTheKernel) {
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device";
  const at::Device cuda(at::kCUDA, 0);
  const at::Tensor q = at::randn({2, 4, 128}, at::TensorOptions().device(cuda)).to(at::kBFloat16);
  // Two slots of 16 entries, 2 kv heads.
  const model::KVCacheView cache{at::randn({32, 2, 128}, q.options()),
                                 at::randn({32, 2, 128}, q.options())};
  if (!can_decode_attention(q, cache.keys)) GTEST_SKIP() << "no decode kernel in this build";
  model::DecodeView view;
  view.slot_starts = at::tensor(std::vector<int64_t>{16, 0}, at::kLong).to(cuda);
  view.lengths = at::tensor(std::vector<int64_t>{9, 16}, at::kLong).to(cuda);
  view.max_length = 16;
  view.cu_starts_i32 = at::tensor(std::vector<int32_t>{16, 0, 32}, at::kInt).to(cuda);
  view.lengths_i32 = view.lengths.to(at::kInt);
  const at::Tensor direct = decode_attention(q, cache.keys, cache.values, view.cu_starts_i32,
                                             view.lengths_i32, 16, 0.125);
  EXPECT_TRUE(at::equal(model::decode_attention(q, cache, 16, view, 0.125), direct));
}

}  // namespace
}  // namespace verlpp::kernels
