// Which rows of a parameter each rank holds under FSDP2-style sharding (distributed.md §3):
// dim 0 of a tensor of `rows` rows is padded to world × capacity rows, capacity =
// ceil(rows / world), and rank r holds padded rows [r × capacity, (r + 1) × capacity), of which
// the first `valid` are real rows (the rest, zeros, exist only so every rank's shard has the
// same shape for the collectives). world 1 holds every row.
#pragma once

#include <cstdint>

namespace verlpp::engine::fsdp {

struct ShardRows {
  std::int64_t begin = 0;     // first real row of the tensor held here
  std::int64_t valid = 0;     // real rows held here (0 for a rank past the end)
  std::int64_t capacity = 0;  // rows of every rank's shard, padding included
};

// Throws verlpp::Error when world < 1, rank is outside [0, world) or rows < 0.
ShardRows shard_rows(std::int64_t rows, std::int64_t world, std::int64_t rank);

}  // namespace verlpp::engine::fsdp
