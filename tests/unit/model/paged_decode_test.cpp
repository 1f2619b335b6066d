// A decode step over a paged KV cache (model::DecodeView with page_size > 0) equals the same step
// over contiguous slots holding the same keys and values: fp32 on the CPU (the eager path), and
// bf16 on CUDA where there is one (verlpp's paged decode kernel against the contiguous one).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "verlpp/core/device.h"
#include "verlpp/model/generation_state.h"
#include "verlpp/model/layers/attention.h"

namespace verlpp::model {
namespace {

TEST(PagedDecode, EqualsContiguousSlots) {
  std::vector<at::Device> devices = {at::kCPU};
  if (cuda_available()) devices.emplace_back(at::kCUDA);
  for (const at::Device& device : devices) {
    const at::ScalarType dtype = device.is_cuda() ? at::kBFloat16 : at::kFloat;
    const auto options = at::TensorOptions().device(device).dtype(dtype);
    const int64_t capacity = 32, page = 8, kv_heads = 2, heads = 4, dim = 64;
    const std::vector<int64_t> lengths = {5, 32, 9, 17};
    const auto N = static_cast<int64_t>(lengths.size());
    at::Generator gen = at::detail::createCPUGenerator(3);
    const at::Tensor keys = at::randn({N * capacity, kv_heads, dim}, gen).to(options);
    const at::Tensor values = at::randn({N * capacity, kv_heads, dim}, gen).to(options);
    const at::Tensor q = at::randn({N, heads, dim}, gen).to(options);
    // Contiguous: sequence n in slot n. Paged: the slot's pages moved to shuffled pages of a
    // second cache of the same size.
    const int64_t pool = N * capacity / page;
    const at::Tensor order = at::randperm(pool, gen, at::kLong);
    at::Tensor paged_keys = at::zeros_like(keys), paged_values = at::zeros_like(values);
    std::vector<int32_t> pages, offsets;
    for (int64_t n = 0; n < N; ++n) {
      offsets.push_back(static_cast<int32_t>(pages.size()));
      for (int64_t i = 0; i < (lengths[n] + page - 1) / page; ++i) {
        const int64_t to = order[n * capacity / page + i].item<int64_t>();
        paged_keys.narrow(0, to * page, page).copy_(keys.narrow(0, n * capacity + i * page, page));
        paged_values.narrow(0, to * page, page)
            .copy_(values.narrow(0, n * capacity + i * page, page));
        pages.push_back(static_cast<int32_t>(to));
      }
    }
    DecodeView contiguous;
    contiguous.slot_starts =
        at::arange(N, at::TensorOptions().dtype(at::kLong)).to(device) * capacity;
    contiguous.lengths = at::tensor(lengths, at::kLong).to(device);
    contiguous.max_length = capacity;
    if (device.is_cuda()) {
      contiguous.cu_starts_i32 = (at::arange(N + 1, at::kLong) * capacity).to(device, at::kInt);
      contiguous.lengths_i32 = contiguous.lengths.to(at::kInt);
    }
    DecodeView paged;
    paged.page_size = page;
    paged.pages = at::tensor(pages, at::kInt).to(device);
    paged.page_offsets = at::tensor(offsets, at::kInt).to(device);
    paged.lengths = contiguous.lengths;
    paged.lengths_i32 = contiguous.lengths_i32;
    paged.max_length = 32;
    const at::Tensor want = decode_attention(q, {keys, values}, capacity, contiguous, 0.125);
    const at::Tensor got = decode_attention(q, {paged_keys, paged_values}, capacity, paged, 0.125);
    EXPECT_TRUE(at::equal(got, want)) << device;
  }
}

}  // namespace
}  // namespace verlpp::model
