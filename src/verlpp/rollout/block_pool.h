// The rollout's pool of KV blocks (vLLM v1's BlockPool, core/block_pool.py): a fixed number of
// blocks of block_size tokens, each with a reference count, and a prefix cache over full blocks.
//
// A full block is named by the hash of its parent block's hash and its own token ids (plus the
// request's extra key, e.g. non-standard positions), so a chain of hashes names a prompt prefix.
// Blocks whose count falls to 0 go to the back of the free queue but keep their hash: a later
// request with the same prefix takes them back ("touch") until an allocation pops them from the
// front, which evicts the hash. Counts > 1 mean shared blocks (the n samples of a GRPO prompt).
// No LibTorch: block ids index the storage the model runner owns.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

namespace verlpp::rollout {

// The hash of a full block and what it was made from (compared on a hit, so that a 64-bit
// collision is a miss, never a wrong prefix).
struct BlockHash {
  std::uint64_t value = 0;
  std::uint64_t parent = 0;  // the previous block's value (0 for the first block)
  std::vector<std::int64_t> tokens;
  std::uint64_t extra = 0;

  bool operator==(const BlockHash& o) const {
    return value == o.value && parent == o.parent && extra == o.extra && tokens == o.tokens;
  }
};

// The hash of one full block of `tokens` after the block hashed `parent` (0 for the first).
BlockHash hash_block(std::uint64_t parent, std::vector<std::int64_t> tokens, std::uint64_t extra);

// The chain of hashes of the full blocks of `tokens` (tokens.size() / block_size of them).
std::vector<BlockHash> block_hashes(const std::vector<std::int64_t>& tokens,
                                    std::int64_t block_size, std::uint64_t extra);

class BlockPool {
 public:
  // Throws verlpp::Error when num_blocks < 1.
  explicit BlockPool(std::int64_t num_blocks, bool enable_caching = true);

  std::int64_t num_blocks() const { return static_cast<std::int64_t>(blocks_.size()); }
  // Blocks that an allocation may take: count 0, cached or not.
  std::int64_t num_free_blocks() const { return static_cast<std::int64_t>(free_.size()); }
  std::int64_t ref_count(std::int64_t block) const;

  // The cached block holding `hash`, if any (its count unchanged).
  std::optional<std::int64_t> cached_block(const BlockHash& hash) const;
  // Takes a reference on each block (cached blocks found by cached_block; count 0 ones leave the
  // free queue).
  void touch(const std::vector<std::int64_t>& blocks);
  // n blocks from the front of the free queue, count 1, their old hashes evicted. Throws
  // verlpp::Error when fewer than n are free.
  std::vector<std::int64_t> allocate(std::int64_t n);
  // Drops a reference on each block, in order; blocks reaching 0 join the back of the free queue
  // (so a request's blocks freed last-first are evicted tail first). Throws verlpp::Error on a
  // block whose count is already 0.
  void free(const std::vector<std::int64_t>& blocks);
  // Records `hash` as the content of full block `block` (a no-op without caching, or when an
  // equal hash is already cached: the first block keeps the name).
  void cache(std::int64_t block, const BlockHash& hash);

 private:
  struct Block {
    std::int64_t ref_count = 0;
    std::optional<BlockHash> hash;
    std::list<std::int64_t>::iterator free_position;
    bool in_free_queue = false;
  };
  void evict(std::int64_t block);

  std::vector<Block> blocks_;
  std::list<std::int64_t> free_;  // eviction order: front first
  std::unordered_multimap<std::uint64_t, std::int64_t> cached_;
  bool enable_caching_;
};

}  // namespace verlpp::rollout
