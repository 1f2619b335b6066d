#include "verlpp/rollout/kv_cache_manager.h"

#include <fmt/format.h>

#include <algorithm>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

KVCacheManager::KVCacheManager(const KVCacheSizes& sizes) : sizes_(sizes) {
  if (sizes.block_size < 1 || sizes.num_blocks < 0 || sizes.num_state_slots < 0 ||
      (sizes.num_blocks == 0 && sizes.num_state_slots == 0)) {
    throw Error(fmt::format(
        "KV cache manager: block_size {} must be >= 1 and num_blocks {}, num_state_slots {} >= 0, "
        "not both 0",
        sizes.block_size, sizes.num_blocks, sizes.num_state_slots));
  }
  if (sizes.num_blocks > 0) pool_.emplace(sizes.num_blocks, sizes.enable_prefix_caching);
  for (std::int64_t s = sizes.num_state_slots; s-- > 0;) free_slots_.push_back(s);
}

std::int64_t KVCacheManager::num_free_blocks() const {
  return pool_ ? pool_->num_free_blocks() : 0;
}

std::int64_t KVCacheManager::blocks_for(std::int64_t tokens) const {
  return has_attention() ? (tokens + sizes_.block_size - 1) / sizes_.block_size : 0;
}

PrefixHit KVCacheManager::cached_prefix(const Request& r) const {
  PrefixHit hit;
  if (!sizes_.enable_prefix_caching || has_state() || !has_attention() || r.prompt.empty() ||
      r.images) {
    return hit;
  }
  const std::int64_t usable = static_cast<std::int64_t>(r.prompt.size()) - 1;
  const std::int64_t bs = sizes_.block_size;
  const std::vector<std::int64_t> prefix(r.prompt.begin(), r.prompt.begin() + usable / bs * bs);
  for (const BlockHash& h : block_hashes(prefix, bs, r.prefix_key)) {
    const std::optional<std::int64_t> block = pool_->cached_block(h);
    if (!block) break;
    hit.blocks.push_back(*block);
    hit.last_hash = h.value;
  }
  hit.tokens = static_cast<std::int64_t>(hit.blocks.size()) * bs;
  return hit;
}

bool KVCacheManager::allocate(const Request& r, std::int64_t num_new_tokens, const PrefixHit& hit) {
  const auto it = held_.find(r.id);
  const bool first = it == held_.end();
  const std::int64_t computed = first ? hit.tokens : r.num_computed_tokens;
  const auto have = static_cast<std::int64_t>(first ? hit.blocks.size() : it->second.blocks.size());
  const std::int64_t need = std::max<std::int64_t>(0, blocks_for(computed + num_new_tokens) - have);
  std::int64_t reclaimed = 0;  // hit blocks now in the free queue, which touching takes out of it
  if (first) {
    for (const std::int64_t b : hit.blocks) reclaimed += pool_->ref_count(b) == 0 ? 1 : 0;
  }
  if (need > num_free_blocks() - reclaimed || (first && has_state() && free_slots_.empty())) {
    return false;
  }
  Held& h = held_[r.id];
  if (first) {
    if (pool_) pool_->touch(hit.blocks);
    h.blocks = hit.blocks;
    h.cached_blocks = static_cast<std::int64_t>(hit.blocks.size());
    h.last_hash = hit.last_hash;
    if (has_state()) {
      h.slot = free_slots_.back();
      free_slots_.pop_back();
    }
  }
  if (need > 0) {
    const std::vector<std::int64_t> fresh = pool_->allocate(need);
    h.blocks.insert(h.blocks.end(), fresh.begin(), fresh.end());
  }
  return true;
}

bool KVCacheManager::fork(const Request& parent, const Request& child, ForkCopies& copies) {
  const Held& p = held_.at(parent.id);
  const auto prompt = static_cast<std::int64_t>(parent.prompt.size());
  const std::int64_t full = has_attention() ? prompt / sizes_.block_size : 0;
  const bool partial = has_attention() && prompt % sizes_.block_size != 0;
  if ((partial && num_free_blocks() < 1) || (has_state() && free_slots_.empty()) ||
      held_.count(child.id) > 0) {
    return false;
  }
  Held c;
  c.blocks.assign(p.blocks.begin(), p.blocks.begin() + full);
  if (pool_) pool_->touch(c.blocks);
  if (partial) {
    const std::int64_t copy = pool_->allocate(1)[0];
    copies.blocks.emplace_back(p.blocks[static_cast<size_t>(full)], copy);
    c.blocks.push_back(copy);
  }
  if (has_state()) {
    c.slot = free_slots_.back();
    free_slots_.pop_back();
    copies.slots.emplace_back(p.slot, c.slot);
  }
  // The parent has computed exactly its prompt: its named blocks are among the full ones shared.
  c.cached_blocks = p.cached_blocks;
  c.last_hash = p.last_hash;
  held_.emplace(child.id, std::move(c));
  return true;
}

void KVCacheManager::cache_full_blocks(const Request& r, std::int64_t computed) {
  if (!pool_ || !sizes_.enable_prefix_caching || has_state() || r.images) return;
  Held& h = held_.at(r.id);
  const std::int64_t bs = sizes_.block_size;
  const std::int64_t full = std::min<std::int64_t>(computed / bs, h.blocks.size());
  for (std::int64_t b = h.cached_blocks; b < full; ++b) {
    std::vector<std::int64_t> tokens;
    for (std::int64_t i = b * bs; i < (b + 1) * bs; ++i) tokens.push_back(r.token(i));
    const BlockHash hash = hash_block(h.last_hash, std::move(tokens), r.prefix_key);
    pool_->cache(h.blocks[static_cast<size_t>(b)], hash);
    h.last_hash = hash.value;
  }
  h.cached_blocks = std::max(h.cached_blocks, full);
}

void KVCacheManager::free(const Request& r) {
  const auto it = held_.find(r.id);
  if (it == held_.end()) return;
  if (pool_) {
    std::vector<std::int64_t> reversed(it->second.blocks.rbegin(), it->second.blocks.rend());
    pool_->free(reversed);
  }
  if (it->second.slot >= 0) free_slots_.push_back(it->second.slot);
  held_.erase(it);
}

const std::vector<std::int64_t>& KVCacheManager::block_table(std::int64_t request) const {
  const auto it = held_.find(request);
  if (it == held_.end()) {
    throw Error(fmt::format("KV cache manager: request {} holds no blocks", request));
  }
  return it->second.blocks;
}

std::int64_t KVCacheManager::state_slot(std::int64_t request) const {
  const auto it = held_.find(request);
  return it == held_.end() ? -1 : it->second.slot;
}

}  // namespace verlpp::rollout
