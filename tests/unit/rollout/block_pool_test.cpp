// The rollout's block pool (rollout/block_pool.h), worked by hand: allocation order, reference
// counts, the free queue's eviction order, prefix-cache hits and their eviction, hash chains, and a
// 64-bit hash collision that must be a miss.
#include "verlpp/rollout/block_pool.h"

#include <gtest/gtest.h>

#include <vector>

#include "verlpp/core/error.h"

namespace verlpp::rollout {
namespace {

using Ids = std::vector<std::int64_t>;

TEST(BlockPool, AllocatesFromTheFrontAndFreesToTheBack) {
  BlockPool pool(4);
  EXPECT_EQ(pool.allocate(2), (Ids{0, 1}));
  EXPECT_EQ(pool.num_free_blocks(), 2);
  EXPECT_EQ(pool.ref_count(0), 1);
  pool.free({1, 0});  // a request's blocks, last first
  EXPECT_EQ(pool.num_free_blocks(), 4);
  EXPECT_EQ(pool.allocate(3), (Ids{2, 3, 1}));
  EXPECT_THROW(pool.allocate(2), Error);
  pool.free({2});
  EXPECT_THROW(pool.free({2}), Error);  // freed twice
  EXPECT_THROW(BlockPool(0), Error);
}

TEST(BlockPool, SharedBlocksCountReferences) {
  BlockPool pool(3);
  const Ids blocks = pool.allocate(2);
  pool.touch(blocks);  // a second request shares them
  EXPECT_EQ(pool.ref_count(0), 2);
  pool.free(blocks);
  EXPECT_EQ(pool.num_free_blocks(), 1);  // still held once
  pool.free(blocks);
  EXPECT_EQ(pool.num_free_blocks(), 3);
}

TEST(BlockPool, CachedBlocksComeBackUntilEvicted) {
  BlockPool pool(2);
  const BlockHash h = block_hashes({5, 6, 7, 8}, 4, 0)[0];
  const std::int64_t b = pool.allocate(1)[0];
  pool.cache(b, h);
  pool.free({b});
  EXPECT_EQ(pool.num_free_blocks(), 2);
  ASSERT_EQ(pool.cached_block(h), b);  // free, but still named
  pool.touch({b});
  EXPECT_EQ(pool.num_free_blocks(), 1);
  EXPECT_EQ(pool.ref_count(b), 1);
  pool.free({b});
  // The other block is at the front of the free queue: taking one block keeps b cached.
  EXPECT_NE(pool.allocate(1)[0], b);
  EXPECT_EQ(pool.cached_block(h), b);
  pool.allocate(1);  // now b: its name is evicted
  EXPECT_FALSE(pool.cached_block(h).has_value());
}

TEST(BlockPool, WithoutCachingNothingIsNamed) {
  BlockPool pool(2, /*enable_caching=*/false);
  const BlockHash h = block_hashes({1, 2}, 2, 0)[0];
  pool.cache(pool.allocate(1)[0], h);
  EXPECT_FALSE(pool.cached_block(h).has_value());
}

TEST(BlockPool, HashChainsNameWholePrefixes) {
  const std::vector<BlockHash> a = block_hashes({1, 2, 3, 4, 5}, 2, 0);
  ASSERT_EQ(a.size(), 2u);  // the partial block [5] is not hashed
  EXPECT_EQ(a[0].parent, 0u);
  EXPECT_EQ(a[1].parent, a[0].value);
  EXPECT_EQ(a[1].tokens, (Ids{3, 4}));
  // The same block after another first block, or with another extra key, is another name.
  EXPECT_NE(block_hashes({9, 9, 3, 4}, 2, 0)[1].value, a[1].value);
  EXPECT_NE(block_hashes({1, 2, 3, 4}, 2, 7)[1].value, a[1].value);
  EXPECT_EQ(block_hashes({1, 2, 3, 4}, 2, 0)[1], a[1]);
  EXPECT_THROW(block_hashes({1}, 0, 0), Error);
}

TEST(BlockPool, HashCollisionIsAMiss) {
  BlockPool pool(2);
  const BlockHash h = block_hashes({1, 2}, 2, 0)[0];
  pool.cache(pool.allocate(1)[0], h);
  BlockHash forged = h;
  forged.tokens = {3, 4};  // same 64-bit value, other tokens
  EXPECT_FALSE(pool.cached_block(forged).has_value());
  EXPECT_TRUE(pool.cached_block(h).has_value());
}

}  // namespace
}  // namespace verlpp::rollout
