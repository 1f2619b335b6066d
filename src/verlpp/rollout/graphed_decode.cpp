#include "verlpp/rollout/graphed_decode.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/core/cuda_graph.h"
#include "verlpp/core/error.h"

namespace verlpp::rollout {

struct GraphedDecoder::Bucket {
  int64_t size = 0;
  at::Tensor tokens, positions, slot_starts, lengths;  // static inputs [size]
  at::Tensor logits;                                   // output [size, vocab]
  compat::CudaGraph graph;
  int64_t live = 0;  // rows of the last step; rows beyond it point at the scratch slot
};

GraphedDecoder::GraphedDecoder(const model::CausalLM& model, KVCache& cache, int64_t max_rows)
    : model_(model), cache_(cache), max_rows_(max_rows) {
  if (max_rows < 1 || max_rows > cache.slots() - 1) {
    throw Error(fmt::format("graphed decode: {} rows need a cache of more than {} slots", max_rows,
                            cache.slots()));
  }
}

GraphedDecoder::~GraphedDecoder() = default;

GraphedDecoder::Bucket& GraphedDecoder::bucket_for(int64_t n) {
  int64_t size = 1;
  while (size < n) size *= 2;
  size = std::min(size, max_rows_);
  auto it = buckets_.find(size);
  if (it != buckets_.end()) return *it->second;

  auto b = std::make_unique<Bucket>();
  b->size = size;
  const auto options = at::TensorOptions().dtype(at::kLong).device(model_.device());
  const int64_t scratch = (cache_.slots() - 1) * cache_.capacity();
  b->tokens = at::zeros({size}, options);
  b->positions = at::zeros({size}, options);
  b->slot_starts = at::full({size}, scratch, options);
  b->lengths = at::ones({size}, options);
  Bucket* raw = b.get();
  const int64_t rows = cache_.slots() * cache_.capacity();
  raw->graph.capture([this, raw, rows] {
    model::DecodeView view;
    view.slot_starts = raw->slot_starts;
    view.lengths = raw->lengths;
    view.max_length = cache_.capacity();
    view.cu_starts_i32 =
        at::cat({raw->slot_starts, at::full({1}, rows, raw->slot_starts.options())}).to(at::kInt);
    view.lengths_i32 = raw->lengths.to(at::kInt);
    raw->logits = model_.logits(model_.decode(raw->tokens, raw->positions, view, cache_.view()));
  });
  return *buckets_.emplace(size, std::move(b)).first->second;
}

at::Tensor GraphedDecoder::step(const at::Tensor& tokens, const at::Tensor& positions,
                                const at::Tensor& slot_starts, const at::Tensor& lengths) {
  const int64_t n = tokens.size(0);
  if (n < 1 || n > max_rows_) {
    throw Error(fmt::format("graphed decode: {} rows, expected 1..{}", n, max_rows_));
  }
  Bucket& b = bucket_for(n);
  if (b.live != n) {
    // Rows beyond the live batch must not touch the slots of sequences that moved down after
    // finished ones left.
    const int64_t scratch = (cache_.slots() - 1) * cache_.capacity();
    b.slot_starts.narrow(0, n, b.size - n).fill_(scratch);
    b.positions.narrow(0, n, b.size - n).zero_();
    b.lengths.narrow(0, n, b.size - n).fill_(1);
    b.live = n;
  }
  b.tokens.narrow(0, 0, n).copy_(tokens);
  b.positions.narrow(0, 0, n).copy_(positions);
  b.slot_starts.narrow(0, 0, n).copy_(slot_starts);
  b.lengths.narrow(0, 0, n).copy_(lengths);
  b.graph.replay();
  return b.logits.narrow(0, 0, n);
}

}  // namespace verlpp::rollout
