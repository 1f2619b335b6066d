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

}  // namespace

std::vector<std::vector<std::int64_t>> micro_batch_indices(const at::Tensor& attention_mask,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp) {
  const std::int64_t rows = attention_mask.size(0);
  if (how.max_tokens) {
    if (*how.max_tokens < 1) throw Error("max_token_len_per_gpu: expected a value >= 1");
    auto pieces = by_tokens(attention_mask, *how.max_tokens);
    if (dp.size() > 1) {
      const auto count = static_cast<std::int64_t>(
          dp.all_reduce(static_cast<double>(pieces.size()), dist::ReduceOp::max));
      const at::Tensor lengths = attention_mask.ne(0).sum(1).to(at::kLong).cpu().contiguous();
      const auto* len = lengths.data_ptr<std::int64_t>();
      const auto tokens = [len](const std::vector<std::int64_t>& piece) {
        std::int64_t sum = 0;
        for (std::int64_t row : piece) sum += len[row];
        return sum;
      };
      if (!split_to_count(pieces, count, tokens)) {
        throw Error("micro-batches: another data-parallel rank needs " + std::to_string(count) +
                    " micro-batches but this rank has only " + std::to_string(rows) + " rows");
      }
    }
    return pieces;
  }
  if (how.rows && *how.rows < 1) throw Error("micro_batch_size_per_gpu: expected a value >= 1");
  return by_rows(rows, how.rows.value_or(std::max<std::int64_t>(rows, 1)));
}

}  // namespace verlpp::engine
