#include "verlpp/rollout/graphed_decode.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include "verlpp/core/cuda_graph.h"
#include "verlpp/core/error.h"

namespace verlpp::rollout {

struct GraphedDecoder::Bucket {
  int64_t size = 0;
  at::Tensor tokens, positions, slots, lengths;  // static inputs [size]
  at::Tensor logits;                             // output [size, vocab]
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

int64_t graph_bucket(int64_t n, int64_t max_rows) {
  int64_t size = 1;
  while (size < n) size *= 2;
  return std::min(size, max_rows);
}

GraphedDecoder::Bucket& GraphedDecoder::bucket_for(int64_t n) {
  const int64_t size = graph_bucket(n, max_rows_);
  auto it = buckets_.find(size);
  if (it != buckets_.end()) return *it->second;

  auto b = std::make_unique<Bucket>();
  b->size = size;
  const auto options = at::TensorOptions().dtype(at::kLong).device(model_.device());
  b->tokens = at::zeros({size}, options);
  b->positions = at::zeros({size}, options);
  b->slots = at::full({size}, cache_.slots() - 1, options);
  b->lengths = at::ones({size}, options);
  Bucket* raw = b.get();
  raw->graph.capture([this, raw] {
    const model::DecodeView view =
        model::slot_decode_view(raw->slots, raw->lengths, cache_.capacity(), cache_.slots(),
                                cache_.capacity(), /*flash=*/true);
    raw->logits = model_.logits(model_.decode(raw->tokens, raw->positions, view, cache_.view()));
  });
  return *buckets_.emplace(size, std::move(b)).first->second;
}

at::Tensor GraphedDecoder::step(const at::Tensor& tokens, const at::Tensor& positions,
                                const at::Tensor& slots, const at::Tensor& lengths) {
  const int64_t n = tokens.size(0);
  if (n < 1 || n > max_rows_) {
    throw Error(fmt::format("graphed decode: {} rows, expected 1..{}", n, max_rows_));
  }
  Bucket& b = bucket_for(n);
  if (b.live != n) {
    // Rows beyond the live batch must not touch the slots of sequences that moved down after
    // finished ones left.
    b.slots.narrow(0, n, b.size - n).fill_(cache_.slots() - 1);
    b.positions.narrow(0, n, b.size - n).zero_();
    b.lengths.narrow(0, n, b.size - n).fill_(1);
    b.live = n;
  }
  b.tokens.narrow(0, 0, n).copy_(tokens);
  b.positions.narrow(0, 0, n).copy_(positions);
  b.slots.narrow(0, 0, n).copy_(slots);
  b.lengths.narrow(0, 0, n).copy_(lengths);
  b.graph.replay();
  return b.logits.narrow(0, 0, n);
}

}  // namespace verlpp::rollout
