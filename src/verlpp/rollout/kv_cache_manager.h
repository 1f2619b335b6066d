// Which KV blocks and state slots each request holds (vLLM v1's KVCacheManager,
// core/kv_cache_manager.py, with a state-slot pool beside the block pool for linear-attention
// layers, as hybrid models need: llama.cpp's llama-memory-hybrid). Attention layers keep keys and
// values in blocks of block_size tokens (a request's block table lists them in order); Gated
// DeltaNet layers keep one conv window and recurrent state per request (a state slot).
//
// Prefix sharing: a request's full prompt blocks are named by their hash chain (block_pool.h);
// a new request takes the longest cached chain of its prompt (attention-only models: the state
// slots of linear-attention layers hold no per-block history, so hybrid models share prefills by
// fork() only). fork() makes a request share another's prompt: its full blocks by reference, its
// last partial block and its state slot by copy (the copies are the runner's to do).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "verlpp/rollout/block_pool.h"
#include "verlpp/rollout/request.h"

namespace verlpp::rollout {

struct KVCacheSizes {
  std::int64_t block_size = 16;
  std::int64_t num_blocks = 0;       // attention KV blocks (0: the model has no attention layers)
  std::int64_t num_state_slots = 0;  // linear-attention state slots (0: none)
  bool enable_prefix_caching = true;
};

// What fork() asks the runner to copy: a block's keys and values, a slot's states.
struct ForkCopies {
  std::vector<std::pair<std::int64_t, std::int64_t>> blocks;  // (source, destination)
  std::vector<std::pair<std::int64_t, std::int64_t>> slots;
};

// Cached blocks holding a prompt's first `tokens` tokens.
struct PrefixHit {
  std::vector<std::int64_t> blocks;
  std::int64_t tokens = 0;
  std::uint64_t last_hash = 0;  // the hash of the last hit block (0 without a hit)
};

class KVCacheManager {
 public:
  // Throws verlpp::Error when block_size < 1, a count is negative, or both counts are 0.
  explicit KVCacheManager(const KVCacheSizes& sizes);

  std::int64_t block_size() const { return sizes_.block_size; }
  bool has_attention() const { return sizes_.num_blocks > 0; }
  bool has_state() const { return sizes_.num_state_slots > 0; }
  std::int64_t num_free_blocks() const;
  std::int64_t num_free_slots() const { return static_cast<std::int64_t>(free_slots_.size()); }

  // The longest cached prefix of r's prompt, whole blocks, leaving at least its last prompt token
  // to compute; none without prefix caching, with state slots or for a prompt with images (whose
  // image pad tokens do not name the images).
  PrefixHit cached_prefix(const Request& r) const;

  // Makes room for r's tokens up to r.num_computed_tokens + num_new_tokens (after taking `hit`'s
  // blocks, on r's first allocation) and, on the first allocation, a state slot. Returns false,
  // changing nothing, when the blocks or the slot are not there.
  bool allocate(const Request& r, std::int64_t num_new_tokens, const PrefixHit& hit = {});
  // Blocks one more allocation of `tokens` tokens for a request holding nothing would take.
  std::int64_t blocks_for(std::int64_t tokens) const;
  // child takes parent's prompt: its full blocks shared, the partial one copied, a state slot
  // copied. False, changing nothing, when a block or slot is missing.
  bool fork(const Request& parent, const Request& child, ForkCopies& copies);
  // Records r's full blocks among its first `computed` tokens in the prefix cache (not for a
  // prompt with images, nor with state slots).
  void cache_full_blocks(const Request& r, std::int64_t computed);
  // Gives back everything r holds (blocks last-first, so that a prefix's tail is evicted first).
  void free(const Request& r);

  const std::vector<std::int64_t>& block_table(std::int64_t request) const;
  std::int64_t state_slot(std::int64_t request) const;  // -1: none

 private:
  struct Held {
    std::vector<std::int64_t> blocks;
    std::int64_t slot = -1;
    std::int64_t cached_blocks = 0;  // leading blocks already named in the prefix cache
    std::uint64_t last_hash = 0;     // the hash of the last of those
  };
  KVCacheSizes sizes_;
  std::optional<BlockPool> pool_;
  std::vector<std::int64_t> free_slots_;
  std::unordered_map<std::int64_t, Held> held_;
};

}  // namespace verlpp::rollout
