#include "verlpp/engine/fsdp/shard_rows.h"

#include <algorithm>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp::engine::fsdp {

ShardRows shard_rows(std::int64_t rows, std::int64_t world, std::int64_t rank) {
  if (world < 1 || rank < 0 || rank >= world || rows < 0) {
    throw Error("shard_rows: expected rows >= 0 and 0 <= rank < world, got rows " +
                std::to_string(rows) + ", rank " + std::to_string(rank) + ", world " +
                std::to_string(world));
  }
  ShardRows out;
  out.capacity = (rows + world - 1) / world;
  out.begin = std::min(rank * out.capacity, rows);
  out.valid = std::min(out.capacity, rows - out.begin);
  return out;
}

}  // namespace verlpp::engine::fsdp
