#include "verlpp/rollout/paged_decode.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>

#include "verlpp/core/cuda_graph.h"
#include "verlpp/core/error.h"
#include "verlpp/core/host_copy.h"
#include "verlpp/rollout/graphed_decode.h"

namespace verlpp::rollout {

at::Tensor device_tensor(const std::vector<int64_t>& values, const at::Device& device,
                         at::ScalarType dtype) {
  return to_device(at::tensor(values, at::kLong).to(dtype), device);
}

void take_device_tokens(at::Tensor tokens, const PagedDecodeInputs& in) {
  std::vector<int64_t> dst, src;
  for (size_t i = 0; i < in.device_rows.size(); ++i) {
    if (in.device_rows[i] < 0) continue;
    dst.push_back(static_cast<int64_t>(i));
    src.push_back(in.device_rows[i]);
  }
  if (dst.empty()) return;
  const at::Device dev = tokens.device();
  tokens.index_copy_(0, device_tensor(dst, dev),
                     in.device_tokens.index_select(0, device_tensor(src, dev)));
}

at::Tensor paged_decode(const model::CausalLM& model, PagedKVCache& cache,
                        const PagedDecodeInputs& in) {
  std::vector<int64_t> pages, offsets;
  for (const std::vector<int64_t>* blocks : in.block_tables) {
    offsets.push_back(static_cast<int64_t>(pages.size()));
    pages.insert(pages.end(), blocks->begin(), blocks->end());
  }
  const at::Device dev = model.device();
  model::DecodeView view;
  view.page_size = cache.block_size();
  view.pages = device_tensor(pages, dev, at::kInt);
  view.page_offsets = device_tensor(offsets, dev, at::kInt);
  view.lengths = device_tensor(in.lengths, dev);
  view.lengths_i32 = view.lengths.to(at::kInt);
  view.max_length = *std::max_element(in.lengths.begin(), in.lengths.end());
  view.new_rows = device_tensor(in.new_rows, dev);
  view.state_slots = device_tensor(in.state_slots, dev);
  const at::Tensor tokens = device_tensor(in.tokens, dev);
  take_device_tokens(tokens, in);
  return model.decode(tokens, device_tensor(in.positions, dev), view, cache.view());
}

// A bucket's inputs live in two device buffers, each filled by one copy a step:
//   longs [5, size] int64: tokens, positions, lengths, new rows, state slots
//   ints  [size * max_pages + 2 size] int32: block tables (max_pages each), their offsets, lengths
struct GraphedPagedDecoder::Bucket {
  int64_t size = 0;
  at::Tensor longs, ints;
  at::Tensor hidden;  // output [size, hidden]
  compat::CudaGraph graph;
};

GraphedPagedDecoder::GraphedPagedDecoder(const model::CausalLM& model, PagedKVCache& cache,
                                         int64_t max_rows, int64_t max_pages, int64_t scratch_block,
                                         int64_t scratch_slot)
    : model_(model),
      cache_(cache),
      max_rows_(max_rows),
      max_pages_(max_pages),
      scratch_block_(scratch_block),
      scratch_slot_(scratch_slot) {
  if (max_rows < 1 || max_pages < 1) {
    throw Error(fmt::format("graphed paged decode: max_rows ({}) and max_pages ({}) must be >= 1",
                            max_rows, max_pages));
  }
}

GraphedPagedDecoder::~GraphedPagedDecoder() = default;

GraphedPagedDecoder::Bucket& GraphedPagedDecoder::bucket_for(int64_t n) {
  const int64_t size = graph_bucket(n, max_rows_);
  auto it = buckets_.find(size);
  if (it != buckets_.end()) return *it->second;

  auto b = std::make_unique<Bucket>();
  b->size = size;
  const auto options = at::TensorOptions().device(model_.device());
  b->longs = at::empty({5, size}, options.dtype(at::kLong));
  b->ints = at::empty({size * max_pages_ + 2 * size}, options.dtype(at::kInt));
  // Capture runs the step (twice): on padding rows only, which touch nothing but the scratch
  // block and slot (a live row's recurrent state must not advance).
  fill(*b, PagedDecodeInputs{});
  Bucket* raw = b.get();
  raw->graph.capture([this, raw] {
    const int64_t s = raw->size, pages = s * max_pages_;
    model::DecodeView view;
    view.page_size = cache_.block_size();
    view.pages = raw->ints.narrow(0, 0, pages);
    view.page_offsets = raw->ints.narrow(0, pages, s);
    view.lengths_i32 = raw->ints.narrow(0, pages + s, s);
    view.lengths = raw->longs.select(0, 2);
    view.max_length = max_pages_ * cache_.block_size();
    view.new_rows = raw->longs.select(0, 3);
    view.state_slots = raw->longs.select(0, 4);
    raw->hidden =
        model_.decode(raw->longs.select(0, 0), raw->longs.select(0, 1), view, cache_.view());
  });
  return *buckets_.emplace(size, std::move(b)).first->second;
}

void GraphedPagedDecoder::fill(Bucket& b, const PagedDecodeInputs& in) const {
  const auto n = static_cast<int64_t>(in.size());
  const int64_t s = b.size;
  at::Tensor longs = at::empty({5, s}, at::kLong);
  at::Tensor ints = at::empty({s * max_pages_ + 2 * s}, at::kInt);
  int64_t* l = longs.data_ptr<int64_t>();
  int32_t* pages = ints.data_ptr<int32_t>();
  int32_t* offsets = pages + s * max_pages_;
  int32_t* lengths = offsets + s;
  const int64_t scratch_row = scratch_block_ * cache_.block_size();
  for (int64_t i = 0; i < s; ++i) {
    const bool live = i < n;
    const auto k = static_cast<size_t>(i);
    l[i] = live ? in.tokens[k] : 0;
    l[s + i] = live ? in.positions[k] : 0;
    l[2 * s + i] = live ? in.lengths[k] : 1;
    l[3 * s + i] = live ? in.new_rows[k] : scratch_row;
    l[4 * s + i] = live ? in.state_slots[k] : scratch_slot_;
    lengths[i] = static_cast<int32_t>(l[2 * s + i]);
    offsets[i] = static_cast<int32_t>(i * max_pages_);
    int32_t* row = pages + i * max_pages_;
    std::fill(row, row + max_pages_, static_cast<int32_t>(scratch_block_));
    if (!live) continue;
    const std::vector<int64_t>& blocks = *in.block_tables[k];
    if (static_cast<int64_t>(blocks.size()) > max_pages_) {
      throw Error(fmt::format("graphed paged decode: a block table of {} blocks, expected <= {}",
                              blocks.size(), max_pages_));
    }
    std::transform(blocks.begin(), blocks.end(), row,
                   [](int64_t block) { return static_cast<int32_t>(block); });
  }
  copy_from_host(b.longs, longs);
  copy_from_host(b.ints, ints);
  take_device_tokens(b.longs.select(0, 0), in);
}

at::Tensor GraphedPagedDecoder::step(const PagedDecodeInputs& in) {
  const auto n = static_cast<int64_t>(in.size());
  if (n < 1 || n > max_rows_) {
    throw Error(fmt::format("graphed paged decode: {} rows, expected 1..{}", n, max_rows_));
  }
  Bucket& b = bucket_for(n);
  fill(b, in);
  b.graph.replay();
  return b.hidden.narrow(0, 0, n);
}

}  // namespace verlpp::rollout
