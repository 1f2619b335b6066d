#include "verlpp/engine/micro_batches.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "verlpp/core/error.h"
#include "verlpp/data/seqlen_balancing.h"

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

std::vector<std::vector<std::int64_t>> token_budget_partitions(
    const std::vector<std::int64_t>& tokens, std::int64_t budget, const dist::Communicator& dp) {
  if (budget < 1) throw Error("max_token_len_per_gpu: expected a value >= 1");
  const auto rows = static_cast<std::int64_t>(tokens.size());
  const std::int64_t total = std::accumulate(tokens.begin(), tokens.end(), std::int64_t{0});
  std::int64_t count = std::min(rows, total / budget + (total % budget != 0 ? 1 : 0));
  if (dp.size() > 1) {
    count =
        static_cast<std::int64_t>(dp.all_reduce(static_cast<double>(count), dist::ReduceOp::max));
  }
  if (count > rows) {
    throw Error(fmt::format(
        "micro-batches: another data-parallel rank needs {} micro-batches but this rank has only "
        "{} rows",
        count, rows));
  }
  if (count == 0) return {};
  return data::karmarkar_karp_partitions(tokens, count, false);
}

std::vector<std::vector<std::int64_t>> fixed_rows(std::int64_t rows, const MicroBatching& how) {
  if (how.rows && *how.rows < 1) throw Error("micro_batch_size_per_gpu: expected a value >= 1");
  return by_rows(rows, how.rows.value_or(std::max<std::int64_t>(rows, 1)));
}

}  // namespace

std::vector<std::vector<std::int64_t>> micro_batch_indices(const std::vector<std::int64_t>& tokens,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp) {
  if (how.max_tokens) return token_budget_partitions(tokens, *how.max_tokens, dp);
  return fixed_rows(static_cast<std::int64_t>(tokens.size()), how);
}

std::vector<std::vector<std::int64_t>> micro_batch_indices(const at::Tensor& attention_mask,
                                                           const MicroBatching& how,
                                                           const dist::Communicator& dp) {
  if (!how.max_tokens) return fixed_rows(attention_mask.size(0), how);
  const at::Tensor lengths = attention_mask.ne(0).sum(1).to(at::kLong).cpu().contiguous();
  return micro_batch_indices(
      std::vector<std::int64_t>(lengths.data_ptr<std::int64_t>(),
                                lengths.data_ptr<std::int64_t>() + lengths.numel()),
      how, dp);
}

at::Tensor in_batch_order(const std::vector<at::Tensor>& parts,
                          const std::vector<std::vector<std::int64_t>>& pieces) {
  const at::Tensor all = at::cat(parts);
  std::vector<std::int64_t> position(static_cast<std::size_t>(all.size(0)));
  std::int64_t next = 0;
  bool ordered = true;
  for (const auto& piece : pieces) {
    for (const std::int64_t row : piece) {
      ordered = ordered && row == next;
      position[static_cast<std::size_t>(row)] = next++;
    }
  }
  if (ordered) return all;
  return all.index_select(0, at::tensor(position, at::kLong).to(all.device()));
}

}  // namespace verlpp::engine
