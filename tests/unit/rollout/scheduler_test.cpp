// The rollout scheduler and KV cache manager (rollout/scheduler.h, kv_cache_manager.h) driven by a
// stand-in model whose "sampled" token is a function of the request and its length, so that every
// schedule can be worked by hand: token budget and chunked prefill, max_num_seqs, preemption by
// recompute with the same outputs as a roomy run, forks of the n samples of a prompt (blocks
// shared, partial block and state slot copied), prefix-cache hits across requests, stop rules,
// errors.
#include "verlpp/rollout/scheduler.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "verlpp/core/error.h"

namespace verlpp::rollout {
namespace {

using Ids = std::vector<std::int64_t>;

Request make_request(std::int64_t id, std::int64_t prompt_length, std::int64_t max_tokens,
                     std::int64_t first_token = 1) {
  Request r;
  r.id = id;
  r.prompt.resize(static_cast<size_t>(prompt_length));
  std::iota(r.prompt.begin(), r.prompt.end(), first_token);
  r.max_tokens = max_tokens;
  return r;
}

// The stand-in model's next token for a request of `length` tokens.
std::int64_t next_token(std::int64_t id, std::int64_t length) { return 1000 * id + length; }

// Samples for one step's output, as a runner would.
std::vector<SampledToken> sample(const Scheduler& s, const SchedulerOutput& out) {
  std::vector<SampledToken> tokens;
  for (const ScheduledChunk& c : out.chunks) {
    if (c.samples)
      tokens.push_back({c.request, next_token(c.request, c.start + c.num_tokens), 0.f});
  }
  for (const auto& [parent, child] : out.forks) {
    tokens.push_back({child, next_token(child, s.request(child).num_tokens()), 0.f});
  }
  return tokens;
}

// Runs to the end; returns every step's output.
std::vector<SchedulerOutput> run(Scheduler& s) {
  std::vector<SchedulerOutput> steps;
  while (!s.done()) {
    steps.push_back(s.schedule());
    s.update(steps.back(), sample(s, steps.back()));
  }
  return steps;
}

// The same with asynchronous scheduling, as the engine drives it: each step's samples are
// recorded as pending, the next step is scheduled, then the previous samples are resolved.
std::vector<SchedulerOutput> run_async(Scheduler& s) {
  std::vector<SchedulerOutput> steps;
  std::vector<SampledToken> previous;
  while (!s.done()) {
    steps.push_back(s.schedule());
    std::vector<SampledToken> values = sample(s, steps.back());
    s.resolve(previous);
    std::vector<SampledToken> pending = values;
    for (SampledToken& t : pending) t = {t.request, kPendingToken, 0.f, true};
    s.update(steps.back(), pending);
    previous = std::move(values);
  }
  s.resolve(previous);
  return steps;
}

TEST(Scheduler, TokenBudgetChunksPrefills) {
  KVCacheManager kv({4, 100, 0, true});
  Scheduler s({8, 25, true, {}, false}, kv);
  for (std::int64_t id = 0; id < 3; ++id) s.add(make_request(id, 10, 3, 100 * id));
  SchedulerOutput first = s.schedule();
  ASSERT_EQ(first.chunks.size(), 3u);
  EXPECT_EQ(first.chunks[0].num_tokens, 10);
  EXPECT_TRUE(first.chunks[0].samples);
  EXPECT_EQ(first.chunks[2].num_tokens, 5);  // 25 - 10 - 10
  EXPECT_FALSE(first.chunks[2].samples);
  s.update(first, sample(s, first));
  const SchedulerOutput second = s.schedule();
  ASSERT_EQ(second.chunks.size(), 3u);
  EXPECT_EQ(second.chunks[0].num_tokens, 1);  // decode
  EXPECT_EQ(second.chunks[2].start, 5);
  EXPECT_EQ(second.chunks[2].num_tokens, 5);  // the prefill's rest
  EXPECT_TRUE(second.chunks[2].samples);
  EXPECT_EQ(second.num_tokens(), 7);
}

TEST(Scheduler, WithoutChunkedPrefillAPromptWaitsForRoom) {
  KVCacheManager kv({4, 100, 0, true});
  Scheduler s({8, 25, false, {}, false}, kv);
  for (std::int64_t id = 0; id < 3; ++id) s.add(make_request(id, 10, 3, 100 * id));
  const SchedulerOutput first = s.schedule();
  EXPECT_EQ(first.chunks.size(), 2u);
  EXPECT_EQ(s.num_waiting(), 1);
}

TEST(Scheduler, MaxNumSeqsBoundsTheRunningSet) {
  KVCacheManager kv({4, 100, 0, true});
  Scheduler s({2, 1000, true, {}, false}, kv);
  for (std::int64_t id = 0; id < 3; ++id) s.add(make_request(id, 5, 2, 100 * id));
  const std::vector<SchedulerOutput> steps = run(s);
  // Two run for two steps; the third is admitted when they finish.
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].chunks.size(), 2u);
  EXPECT_EQ(steps[2].chunks.size(), 1u);
  EXPECT_EQ(steps[2].chunks[0].request, 2);
  for (std::int64_t id = 0; id < 3; ++id) {
    EXPECT_EQ(s.request(id).output, (Ids{next_token(id, 5), next_token(id, 6)}));
  }
}

// Two requests of 8 prompt tokens in 6 blocks of 4: each needs a third block at 9 tokens and a
// fourth at 13; the second is preempted, recomputed after the first finishes, and ends with the
// same tokens as a run with room to spare.
TEST(Scheduler, PreemptionRecomputesAndKeepsOutputs) {
  KVCacheManager tight({4, 6, 0, true});
  Scheduler s({8, 100, true, {}, false}, tight);
  s.add(make_request(0, 8, 10, 0));
  s.add(make_request(1, 8, 10, 50));
  const std::vector<SchedulerOutput> steps = run(s);
  KVCacheManager roomy({4, 100, 0, true});
  Scheduler r({8, 100, true, {}, false}, roomy);
  r.add(make_request(0, 8, 10, 0));
  r.add(make_request(1, 8, 10, 50));
  run(r);
  for (std::int64_t id = 0; id < 2; ++id) {
    EXPECT_EQ(s.request(id).output, r.request(id).output) << "request " << id;
    EXPECT_EQ(s.request(id).output.size(), 10u);
  }
  EXPECT_EQ(s.request(0).num_preemptions, 0);
  EXPECT_EQ(s.request(1).num_preemptions, 1);
  // Steps 1 and 5 need a block each (9 and 13 tokens): in step 5 the pool is empty and request 1
  // is preempted; it is readmitted once request 0 finishes, with 13 tokens to recompute of which
  // the first prompt block (4 tokens; its last prompt token is always recomputed) comes back from
  // the prefix cache: 4 prompt tokens and its 5 sampled ones in one chunk.
  std::int64_t preempted_at = -1, readmitted_at = -1;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].preempted.empty()) preempted_at = static_cast<std::int64_t>(i);
    for (const ScheduledChunk& c : steps[i].chunks) {
      if (preempted_at >= 0 && readmitted_at < 0 && c.request == 1) {
        readmitted_at = static_cast<std::int64_t>(i);
        EXPECT_EQ(c.start, 4);
        EXPECT_EQ(c.num_tokens, 9);
        EXPECT_TRUE(c.samples);
      }
    }
  }
  EXPECT_EQ(preempted_at, 5);
  EXPECT_EQ(steps[5].preempted, (Ids{1}));
  EXPECT_GT(readmitted_at, preempted_at);
  EXPECT_EQ(tight.num_free_blocks(), 6);  // everything given back
}

// Prompts P (requests 0, 1, 2) and Q (3, 4, 5) of 10 tokens, blocks of 4: one step computes the
// two prompts only; each sample shares its prompt's two full blocks and copies the partial one.
TEST(Scheduler, ForksShareAPromptsPrefill) {
  KVCacheManager kv({4, 100, 0, true});
  Scheduler s({16, 100, true, {}, false}, kv);
  for (const std::int64_t first : {0, 3}) {
    for (std::int64_t k = 0; k < 3; ++k) {
      Request r = make_request(first + k, 10, 2, 10 * first);
      if (k > 0) r.fork_of = first;
      s.add(r);
    }
  }
  const SchedulerOutput step = s.schedule();
  ASSERT_EQ(step.chunks.size(), 2u);
  EXPECT_EQ(step.num_tokens(), 20);
  EXPECT_EQ(step.forks,
            (std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {0, 2}, {3, 4}, {3, 5}}));
  const Ids& parent = kv.block_table(0);
  ASSERT_EQ(parent.size(), 3u);
  for (const std::int64_t child : {1, 2}) {
    const Ids& blocks = kv.block_table(child);
    ASSERT_EQ(blocks.size(), 3u);
    EXPECT_EQ(blocks[0], parent[0]);
    EXPECT_EQ(blocks[1], parent[1]);
    EXPECT_NE(blocks[2], parent[2]);
  }
  ASSERT_EQ(step.copies.blocks.size(), 4u);
  EXPECT_EQ(step.copies.blocks[0], std::make_pair(parent[2], kv.block_table(1)[2]));
  EXPECT_TRUE(step.copies.slots.empty());
  s.update(step, sample(s, step));
  for (std::int64_t id = 0; id < 6; ++id) {
    EXPECT_EQ(s.request(id).num_computed_tokens, 10);
    EXPECT_EQ(s.request(id).output, (Ids{next_token(id, 10)}));
  }
  const SchedulerOutput decode = s.schedule();
  EXPECT_EQ(decode.chunks.size(), 6u);
  EXPECT_EQ(decode.num_tokens(), 6);
}

// A hybrid model (attention blocks and linear-attention state slots): a fork copies the slot too.
TEST(Scheduler, ForksCopyStateSlots) {
  KVCacheManager kv({4, 100, 4, true});
  Scheduler s({16, 100, true, {}, false}, kv);
  s.add(make_request(0, 8, 2));
  Request child = make_request(1, 8, 2);
  child.fork_of = 0;
  s.add(child);
  const SchedulerOutput step = s.schedule();
  ASSERT_EQ(step.copies.slots.size(), 1u);
  EXPECT_EQ(step.copies.slots[0], std::make_pair(kv.state_slot(0), kv.state_slot(1)));
  EXPECT_TRUE(step.copies.blocks.empty());  // 8 tokens: two full blocks, nothing partial
  EXPECT_EQ(kv.block_table(1), kv.block_table(0));
  EXPECT_EQ(kv.num_free_slots(), 2);
  run(s);
  EXPECT_EQ(kv.num_free_slots(), 4);
  EXPECT_EQ(kv.num_free_blocks(), 100);
}

// When the step that completes its parent's prompt has passed, a fork is an ordinary request; an
// attention-only model then finds the parent's prompt blocks in the prefix cache.
TEST(Scheduler, LateForksAndLaterRequestsHitThePrefixCache) {
  KVCacheManager kv({4, 100, 0, true});
  Scheduler s({1, 100, true, {}, false}, kv);  // one sequence at a time: no fork possible
  s.add(make_request(0, 10, 2));
  Request child = make_request(1, 10, 2);
  child.fork_of = 0;
  s.add(child);
  const std::vector<SchedulerOutput> steps = run(s);
  ASSERT_EQ(steps.size(), 4u);
  ASSERT_EQ(steps[2].chunks.size(), 1u);
  EXPECT_EQ(steps[2].chunks[0].request, 1);
  EXPECT_EQ(steps[2].chunks[0].start, 8);  // two cached blocks of 4
  EXPECT_EQ(steps[2].chunks[0].num_tokens, 2);
  EXPECT_TRUE(steps[2].forks.empty());
  EXPECT_EQ(s.prefix_cache_hit_tokens(), 8);
}

// A prompt with images is never split nor found in the prefix cache (its image pad tokens do not
// name its images): with a budget of 6 its 10 tokens wait until a step has room for all of them,
// and the same prompt after it computes all 10 again.
TEST(Scheduler, PromptsWithImagesArePrefilledWholeAndNeverCached) {
  KVCacheManager kv({4, 100, 0, true});
  Scheduler s({1, 10, true, {}, false}, kv);
  auto images = std::make_shared<PromptImages>();
  for (int64_t id : {0, 1}) {
    Request r = make_request(id, 10, 2);
    r.images = images;
    s.add(r);
  }
  const std::vector<SchedulerOutput> steps = run(s);
  ASSERT_EQ(steps.size(), 4u);
  for (const size_t i : {size_t{0}, size_t{2}}) {
    ASSERT_EQ(steps[i].chunks.size(), 1u);
    EXPECT_EQ(steps[i].chunks[0].start, 0);
    EXPECT_EQ(steps[i].chunks[0].num_tokens, 10);
  }
  EXPECT_EQ(s.prefix_cache_hit_tokens(), 0);
  Scheduler tight({1, 6, true, {}, false}, kv);
  Request r = make_request(2, 10, 2);
  r.images = images;
  tight.add(r);
  EXPECT_THROW(tight.schedule(), Error);  // 10 tokens never fit a budget of 6
}

TEST(Scheduler, StopsAtEosUnlessIgnored) {
  for (const bool ignore : {false, true}) {
    KVCacheManager kv({4, 100, 0, true});
    Scheduler s({8, 100, true, {next_token(0, 6)}, ignore}, kv);
    s.add(make_request(0, 5, 4));
    run(s);
    EXPECT_EQ(s.request(0).output.size(), ignore ? 4u : 2u) << ignore;
    EXPECT_EQ(s.request(0).status, RequestStatus::finished);
  }
}

// Request 0 (5 prompt tokens) samples eos as its second token: synchronously 2 steps; with
// asynchronous scheduling a third step is queued before the eos is read, and its sample dropped.
TEST(Scheduler, AsyncSchedulingDropsTheStepQueuedAfterAnEos) {
  KVCacheManager kv({4, 100, 0, true});
  Scheduler s({8, 100, true, {next_token(0, 6)}, false}, kv);
  s.add(make_request(0, 5, 4));
  const std::vector<SchedulerOutput> steps = run_async(s);
  EXPECT_EQ(steps.size(), 3u);
  EXPECT_EQ(s.request(0).output, (Ids{next_token(0, 5), next_token(0, 6)}));
  EXPECT_EQ(s.request(0).status, RequestStatus::finished);
  EXPECT_EQ(kv.num_free_blocks(), 100);
  // A length stop needs no value: it ends at update, and the value is filled in later.
  KVCacheManager kv2({4, 100, 0, true});
  Scheduler t({8, 100, true, {}, false}, kv2);
  t.add(make_request(0, 5, 2));
  EXPECT_EQ(run_async(t).size(), 2u);
  EXPECT_EQ(t.request(0).output, (Ids{next_token(0, 5), next_token(0, 6)}));
}

// Asynchronous scheduling gives every request the outputs synchronous scheduling does, through
// eos stops, preemption by recompute in a tight cache and forks of shared prompts.
TEST(Scheduler, AsyncSchedulingGivesTheSameOutputs) {
  const auto requests = [](Scheduler& s) {
    for (std::int64_t id = 0; id < 3; ++id) s.add(make_request(id, 8, 9, 10 * id));
    Request child = make_request(3, 8, 9, 0);
    child.fork_of = 0;
    s.add(child);
  };
  const Ids eos = {next_token(1, 11), next_token(3, 13)};
  KVCacheManager sync_kv({4, 9, 0, true}), async_kv({4, 9, 0, true});
  Scheduler sync({8, 100, true, eos, false}, sync_kv), async({8, 100, true, eos, false}, async_kv);
  requests(sync);
  requests(async);
  const std::vector<SchedulerOutput> sync_steps = run(sync);
  run_async(async);
  std::int64_t preemptions = 0;
  for (const SchedulerOutput& out : sync_steps)
    preemptions += static_cast<std::int64_t>(out.preempted.size());
  EXPECT_GT(preemptions, 0) << "the cache should be too small for all four at once";
  for (std::int64_t id = 0; id < 4; ++id) {
    EXPECT_EQ(async.request(id).output, sync.request(id).output) << "request " << id;
    EXPECT_EQ(async.request(id).status, RequestStatus::finished) << "request " << id;
  }
  EXPECT_EQ(sync.request(1).output.size(), 4u);  // stopped by eos: 8 prompt + 3 before it
  EXPECT_EQ(async_kv.num_free_blocks(), 9);
}

TEST(Scheduler, BadInputIsAnError) {
  KVCacheManager kv({4, 2, 0, true});
  Scheduler s({8, 100, true, {}, false}, kv);
  EXPECT_THROW(s.add(make_request(0, 0, 2)), Error);  // empty prompt
  EXPECT_THROW(s.add(make_request(0, 3, 0)), Error);  // max_tokens 0
  Request orphan = make_request(5, 3, 2);
  orphan.fork_of = 9;
  EXPECT_THROW(s.add(orphan), Error);
  s.add(make_request(1, 12, 2));  // 3 blocks of 4 > the 2 there are
  try {
    s.schedule();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("request 1"), std::string::npos) << e.what();
  }
  KVCacheManager roomy({4, 10, 0, true});
  Scheduler t({8, 100, true, {}, false}, roomy);
  t.add(make_request(0, 3, 2));
  const SchedulerOutput out = t.schedule();
  EXPECT_THROW(t.update(out, {}), Error);                          // a sample missing
  EXPECT_THROW(t.update(out, {{0, 1, 0.f}, {0, 2, 0.f}}), Error);  // two for one request
  t.update(out, {{0, 7, -0.5f}});  // the failed calls changed nothing
  EXPECT_EQ(t.request(0).num_computed_tokens, 3);
  EXPECT_EQ(t.request(0).output, (Ids{7}));
  EXPECT_THROW(t.resolve({{0, 3, 0.f}}), Error);  // no pending token
  EXPECT_THROW(KVCacheManager({0, 10, 0, true}), Error);
  EXPECT_THROW(Scheduler({0, 100, true, {}, false}, roomy), Error);
}

}  // namespace
}  // namespace verlpp::rollout
