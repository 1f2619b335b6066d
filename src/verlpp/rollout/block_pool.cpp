#include "verlpp/rollout/block_pool.h"

#include <fmt/format.h>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

namespace {

// SplitMix64's finaliser (Steele et al., "Fast splittable pseudorandom number generators", 2014):
// every input bit reaches every output bit.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

BlockHash hash_block(std::uint64_t parent, std::vector<std::int64_t> tokens, std::uint64_t extra) {
  BlockHash h;
  h.parent = parent;
  h.extra = extra;
  h.tokens = std::move(tokens);
  std::uint64_t v = mix(parent ^ mix(extra));
  for (const std::int64_t t : h.tokens) v = mix(v ^ static_cast<std::uint64_t>(t));
  h.value = v;
  return h;
}

std::vector<BlockHash> block_hashes(const std::vector<std::int64_t>& tokens,
                                    std::int64_t block_size, std::uint64_t extra) {
  if (block_size < 1) throw Error(fmt::format("block_hashes: block_size {} < 1", block_size));
  std::vector<BlockHash> out;
  std::uint64_t parent = 0;
  const auto full = static_cast<std::int64_t>(tokens.size()) / block_size;
  for (std::int64_t b = 0; b < full; ++b) {
    out.push_back(hash_block(parent,
                             std::vector<std::int64_t>(tokens.begin() + b * block_size,
                                                       tokens.begin() + (b + 1) * block_size),
                             extra));
    parent = out.back().value;
  }
  return out;
}

BlockPool::BlockPool(std::int64_t num_blocks, bool enable_caching)
    : enable_caching_(enable_caching) {
  if (num_blocks < 1) throw Error(fmt::format("block pool: num_blocks {} < 1", num_blocks));
  blocks_.resize(static_cast<size_t>(num_blocks));
  for (std::int64_t b = 0; b < num_blocks; ++b) {
    blocks_[static_cast<size_t>(b)].free_position = free_.insert(free_.end(), b);
    blocks_[static_cast<size_t>(b)].in_free_queue = true;
  }
}

std::int64_t BlockPool::ref_count(std::int64_t block) const {
  return blocks_.at(static_cast<size_t>(block)).ref_count;
}

std::optional<std::int64_t> BlockPool::cached_block(const BlockHash& hash) const {
  const auto [first, last] = cached_.equal_range(hash.value);
  for (auto it = first; it != last; ++it) {
    if (*blocks_[static_cast<size_t>(it->second)].hash == hash) return it->second;
  }
  return std::nullopt;
}

void BlockPool::touch(const std::vector<std::int64_t>& blocks) {
  for (const std::int64_t b : blocks) {
    Block& block = blocks_.at(static_cast<size_t>(b));
    if (block.in_free_queue) {
      free_.erase(block.free_position);
      block.in_free_queue = false;
    }
    ++block.ref_count;
  }
}

void BlockPool::evict(std::int64_t b) {
  Block& block = blocks_[static_cast<size_t>(b)];
  if (!block.hash) return;
  const auto [first, last] = cached_.equal_range(block.hash->value);
  for (auto it = first; it != last; ++it) {
    if (it->second == b) {
      cached_.erase(it);
      break;
    }
  }
  block.hash.reset();
}

std::vector<std::int64_t> BlockPool::allocate(std::int64_t n) {
  if (n > num_free_blocks()) {
    throw Error(fmt::format("block pool: {} blocks asked for, {} free", n, num_free_blocks()));
  }
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t b = free_.front();
    free_.pop_front();
    Block& block = blocks_[static_cast<size_t>(b)];
    block.in_free_queue = false;
    evict(b);
    block.ref_count = 1;
    out.push_back(b);
  }
  return out;
}

void BlockPool::free(const std::vector<std::int64_t>& blocks) {
  for (const std::int64_t b : blocks) {
    Block& block = blocks_.at(static_cast<size_t>(b));
    if (block.ref_count < 1) throw Error(fmt::format("block pool: block {} freed twice", b));
    if (--block.ref_count == 0) {
      block.free_position = free_.insert(free_.end(), b);
      block.in_free_queue = true;
    }
  }
}

void BlockPool::cache(std::int64_t b, const BlockHash& hash) {
  if (!enable_caching_ || cached_block(hash)) return;
  Block& block = blocks_.at(static_cast<size_t>(b));
  if (block.hash) return;
  block.hash = hash;
  cached_.emplace(hash.value, b);
}

}  // namespace verlpp::rollout
