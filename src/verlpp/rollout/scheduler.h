// Which requests the rollout engine computes each step and how many of their tokens (vLLM v1's
// Scheduler, core/sched/scheduler.py): running requests first (a decode token each, or the next
// piece of a chunked prefill), then waiting ones in order while the token budget
// (max_num_batched_tokens), the sequence limit (max_num_seqs) and the KV cache allow. When a
// running request cannot get a block, the latest admitted running request is preempted (its state
// freed, its sampled tokens kept, recomputed on readmission) and nothing new is admitted that step.
// Without enable_chunked_prefill, and always for a prompt with images, a request is admitted only
// when its whole prefill fits the step's budget.
//
// The n samples of a prompt: a request with fork_of = P is admitted in the step that completes P's
// prompt and forked from P after that step's forward (kv_cache_manager.h fork): it computes no
// prompt tokens and samples its first token from P's last prompt logits. If that step has passed
// (P decoding, preempted or finished), it is admitted as an ordinary request.
//
// Asynchronous scheduling (vLLM v1's async scheduler): a step's samples may be recorded as pending
// (their values still on the device) so that the next step is scheduled and queued before the
// host reads them; a pending token stops a request only by length until resolve() gives its value,
// which may end the request by eos while its next step is already queued (that step's sample for
// it is then dropped by update()).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "verlpp/rollout/kv_cache_manager.h"
#include "verlpp/rollout/request.h"

namespace verlpp::rollout {

struct SchedulerConfig {
  std::int64_t max_num_seqs = 256;             // rollout.max_num_seqs
  std::int64_t max_num_batched_tokens = 8192;  // rollout.max_num_batched_tokens
  bool enable_chunked_prefill = true;          // rollout.enable_chunked_prefill
  std::vector<std::int64_t> eos_token_ids;
  bool ignore_eos = false;
};

// Tokens [start, start + num_tokens) of a request computed this step; with `samples` the step
// reaches its last known token and its next token is sampled.
struct ScheduledChunk {
  std::int64_t request = 0;
  std::int64_t start = 0;
  std::int64_t num_tokens = 0;
  bool samples = false;
};

struct SchedulerOutput {
  std::vector<ScheduledChunk> chunks;  // running requests first, then the admitted ones
  std::vector<std::pair<std::int64_t, std::int64_t>> forks;  // (parent, child), after the forward
  ForkCopies copies;                                         // what the forks copy
  std::vector<std::int64_t> preempted;
  std::int64_t num_tokens() const;
};

struct SampledToken {
  std::int64_t request = 0;
  std::int64_t token = 0;
  float logprob = 0.f;
  bool pending = false;  // the value is not known yet: kPendingToken is stored until resolve()
};

class Scheduler {
 public:
  // Throws verlpp::Error when max_num_seqs or max_num_batched_tokens < 1.
  Scheduler(SchedulerConfig config, KVCacheManager& kv);

  // Queues r (waiting, after those already queued). Throws verlpp::Error for an empty prompt,
  // max_tokens < 1, a repeated id, or a fork_of that is not an earlier request.
  void add(Request r);
  // The next step. Throws verlpp::Error when requests remain but none can be scheduled (a request
  // longer than the whole KV cache), naming it.
  SchedulerOutput schedule();
  // Records a step's results: every chunk's tokens are computed; `sampled` holds one token for
  // each chunk with `samples` and each forked child (requests that finished since the step was
  // scheduled, by resolve(), are skipped). Returns the ids that finished. Throws verlpp::Error for
  // a sample nobody expects or a missing one.
  std::vector<std::int64_t> update(const SchedulerOutput& out,
                                   const std::vector<SampledToken>& sampled);
  // The values of pending tokens (each its request's last output): stores them and ends the
  // requests they stop by eos (running or preempted); values for requests that finished before
  // their sample was recorded are dropped. Returns the ids that finished. Throws verlpp::Error
  // for a running request whose last output is not pending.
  std::vector<std::int64_t> resolve(const std::vector<SampledToken>& values);

  bool done() const { return waiting_.empty() && running_.empty(); }
  const Request& request(std::int64_t id) const;
  const std::vector<std::int64_t>& running() const { return running_; }
  std::int64_t num_waiting() const { return static_cast<std::int64_t>(waiting_.size()); }
  // Prompt tokens admitted requests found in the prefix cache so far (not computed).
  std::int64_t prefix_cache_hit_tokens() const { return prefix_cache_hit_tokens_; }

 private:
  Request& mutable_request(std::int64_t id);
  void preempt(std::int64_t id);
  bool stops(const Request& r, std::int64_t token) const;
  void finish(Request& r);
  // Admits waiting requests into `out` while budget, max_num_seqs and the cache allow.
  void admit(SchedulerOutput& out, std::int64_t& budget);

  SchedulerConfig config_;
  KVCacheManager& kv_;
  std::map<std::int64_t, Request> requests_;
  std::deque<std::int64_t> waiting_;
  std::vector<std::int64_t> running_;  // admission order
  std::int64_t prefix_cache_hit_tokens_ = 0;
};

}  // namespace verlpp::rollout
