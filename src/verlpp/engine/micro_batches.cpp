#include "verlpp/engine/micro_batches.h"

#include <ATen/ATen.h>

#include "verlpp/core/error.h"

namespace verlpp::engine {
namespace {

std::vector<std::vector<std::int64_t>> by_rows(std::int64_t rows, std::int64_t size) {
  std::vector<std::vector<std::int64_t>> out;
  for (std::int64_t start = 0; start < rows; start += size) {
    std::vector<std::int64_t> piece;
    for (std::int64_t i = start; i < std::min(rows, start + size); ++i) piece.push_back(i);
    out.push_back(std::move(piece));
  }
  return out;
}

std::vector<std::vector<std::int64_t>> by_tokens(const at::Tensor& attention_mask,
                                                 std::int64_t budget) {
  const at::Tensor lengths = attention_mask.ne(0).sum(1).to(at::kLong).cpu().contiguous();
  const auto* len = lengths.data_ptr<std::int64_t>();
  std::vector<std::vector<std::int64_t>> out;
  std::int64_t used = 0;
  for (std::int64_t i = 0; i < lengths.size(0); ++i) {
    if (out.empty() || used + len[i] > budget) {
      out.emplace_back();
      used = 0;
    }
    out.back().push_back(i);
    used += len[i];
  }
  return out;
}

// Halves the micro-batch of most tokens (two rows or more) until there are `count`.
void split_to_count(std::vector<std::vector<std::int64_t>>& pieces,
                    const at::Tensor& attention_mask, std::int64_t count) {
  const at::Tensor lengths = attention_mask.ne(0).sum(1).to(at::kLong).cpu().contiguous();
  const auto* len = lengths.data_ptr<std::int64_t>();
  while (static_cast<std::int64_t>(pieces.size()) < count) {
    std::int64_t best = -1, best_tokens = -1;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      std::int64_t tokens = 0;
      for (std::int64_t row : pieces[i]) tokens += len[row];
      if (pieces[i].size() > 1 && tokens > best_tokens) {
        best = static_cast<std::int64_t>(i);
        best_tokens = tokens;
      }
    }
    if (best < 0) {
      throw Error("micro-batches: another data-parallel rank needs " + std::to_string(count) +
                  " micro-batches but this rank has only " + std::to_string(lengths.size(0)) +
                  " rows");
    }
    auto& piece = pieces[static_cast<std::size_t>(best)];
    const auto half = static_cast<std::ptrdiff_t>(piece.size() / 2);
    std::vector<std::int64_t> second(piece.begin() + half, piece.end());
    piece.resize(static_cast<std::size_t>(half));
    pieces.insert(pieces.begin() + best + 1, std::move(second));
  }
}

}  // namespace

std::vector<std::vector<std::int64_t>> micro_batch_indices(const at::Tensor& attention_mask,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp) {
  const std::int64_t rows = attention_mask.size(0);
  if (how.max_tokens) {
    if (*how.max_tokens < 1) throw Error("max_token_len_per_gpu: expected a value >= 1");
    auto pieces = by_tokens(attention_mask, *how.max_tokens);
    if (dp.size() > 1) {
      const double count = dp.all_reduce(static_cast<double>(pieces.size()), dist::ReduceOp::max);
      split_to_count(pieces, attention_mask, static_cast<std::int64_t>(count));
    }
    return pieces;
  }
  if (how.rows && *how.rows < 1) throw Error("micro_batch_size_per_gpu: expected a value >= 1");
  return by_rows(rows, how.rows.value_or(std::max<std::int64_t>(rows, 1)));
}

}  // namespace verlpp::engine
