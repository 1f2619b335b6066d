#include "verlpp/rollout/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "verlpp/core/error.h"

namespace verlpp::rollout {

std::int64_t SchedulerOutput::num_tokens() const {
  std::int64_t n = 0;
  for (const ScheduledChunk& c : chunks) n += c.num_tokens;
  return n;
}

Scheduler::Scheduler(SchedulerConfig config, KVCacheManager& kv)
    : config_(std::move(config)), kv_(kv) {
  if (config_.max_num_seqs < 1 || config_.max_num_batched_tokens < 1) {
    throw Error(fmt::format(
        "scheduler: rollout.max_num_seqs ({}) and rollout.max_num_batched_tokens ({}) must be >= 1",
        config_.max_num_seqs, config_.max_num_batched_tokens));
  }
}

void Scheduler::add(Request r) {
  if (r.prompt.empty() || r.max_tokens < 1 || requests_.count(r.id) > 0 ||
      (r.fork_of && requests_.count(*r.fork_of) == 0)) {
    throw Error(fmt::format(
        "scheduler: request {} needs a non-empty prompt (got {} tokens), max_tokens >= 1 (got {}), "
        "an unused id and, if forked, an earlier request to fork from",
        r.id, r.prompt.size(), r.max_tokens));
  }
  r.status = RequestStatus::waiting;
  waiting_.push_back(r.id);
  const std::int64_t id = r.id;
  requests_.emplace(id, std::move(r));
}

const Request& Scheduler::request(std::int64_t id) const {
  const auto it = requests_.find(id);
  if (it == requests_.end()) throw Error(fmt::format("scheduler: no request {}", id));
  return it->second;
}

Request& Scheduler::mutable_request(std::int64_t id) { return const_cast<Request&>(request(id)); }

void Scheduler::preempt(std::int64_t id) {
  Request& r = mutable_request(id);
  kv_.free(r);
  r.status = RequestStatus::waiting;
  r.num_computed_tokens = 0;
  r.fork_of.reset();
  ++r.num_preemptions;
  running_.erase(std::find(running_.begin(), running_.end(), id));
  waiting_.push_front(id);
}

bool Scheduler::stops(const Request& r, std::int64_t token) const {
  if (static_cast<std::int64_t>(r.output.size()) >= r.max_tokens) return true;
  return token != kPendingToken && !config_.ignore_eos &&
         std::find(config_.eos_token_ids.begin(), config_.eos_token_ids.end(), token) !=
             config_.eos_token_ids.end();
}

void Scheduler::finish(Request& r) {
  if (r.status == RequestStatus::running) {
    kv_.free(r);
    running_.erase(std::find(running_.begin(), running_.end(), r.id));
  } else if (r.status == RequestStatus::waiting) {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), r.id));
  }
  r.status = RequestStatus::finished;
}

SchedulerOutput Scheduler::schedule() {
  SchedulerOutput out;
  std::int64_t budget = config_.max_num_batched_tokens;
  for (size_t i = 0; i < running_.size() && budget > 0;) {
    const std::int64_t id = running_[i];
    const Request& r = request(id);
    const std::int64_t n = std::min(r.num_tokens() - r.num_computed_tokens, budget);
    bool self_preempted = false;
    while (!kv_.allocate(r, n)) {
      const std::int64_t victim = running_.back();
      preempt(victim);
      out.preempted.push_back(victim);
      if (victim == id) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) break;
    out.chunks.push_back(
        {id, r.num_computed_tokens, n, r.num_computed_tokens + n == r.num_tokens()});
    budget -= n;
    ++i;
  }
  if (out.preempted.empty()) admit(out, budget);
  if (out.chunks.empty() && out.forks.empty() && !done()) {
    const Request& r = request(waiting_.front());
    throw Error(fmt::format(
        "rollout: request {} ({} tokens) cannot be scheduled: the KV cache ({} blocks of {} "
        "tokens free) or rollout.max_num_batched_tokens ({}) is too small for it",
        r.id, r.num_tokens(), kv_.num_free_blocks(), kv_.block_size(),
        config_.max_num_batched_tokens));
  }
  return out;
}

void Scheduler::admit(SchedulerOutput& out, std::int64_t& budget) {
  // Requests whose prompt this step completes, for their forks.
  std::set<std::int64_t> completing;
  for (const ScheduledChunk& c : out.chunks) {
    const Request& r = request(c.request);
    if (r.output.empty() && c.samples) completing.insert(c.request);
  }
  while (!waiting_.empty() && static_cast<std::int64_t>(running_.size()) < config_.max_num_seqs) {
    Request& r = mutable_request(waiting_.front());
    if (r.fork_of) {
      const Request& parent = request(*r.fork_of);
      if (completing.count(parent.id) > 0) {
        if (!kv_.fork(parent, r, out.copies)) break;
        waiting_.pop_front();
        r.status = RequestStatus::running;
        r.num_computed_tokens = static_cast<std::int64_t>(r.prompt.size());
        running_.push_back(r.id);
        out.forks.emplace_back(parent.id, r.id);
        continue;
      }
      const bool parent_pending =
          parent.status == RequestStatus::waiting ||
          (parent.status == RequestStatus::running && parent.output.empty());
      if (parent_pending) break;
      r.fork_of.reset();
    }
    if (budget <= 0) break;
    const PrefixHit hit = kv_.cached_prefix(r);
    std::int64_t n = r.num_tokens() - hit.tokens;
    // A prompt with images is prefilled whole (its image features come from one encoder pass).
    if ((!config_.enable_chunked_prefill || r.images) && n > budget) break;
    n = std::min(n, budget);
    if (!kv_.allocate(r, n, hit)) break;
    waiting_.pop_front();
    r.status = RequestStatus::running;
    r.num_computed_tokens = hit.tokens;
    prefix_cache_hit_tokens_ += hit.tokens;
    running_.push_back(r.id);
    const bool samples = hit.tokens + n == r.num_tokens();
    out.chunks.push_back({r.id, hit.tokens, n, samples});
    if (samples && r.output.empty()) completing.insert(r.id);
    budget -= n;
  }
}

std::vector<std::int64_t> Scheduler::update(const SchedulerOutput& out,
                                            const std::vector<SampledToken>& sampled) {
  // Checked before anything changes, so that a bad call leaves the scheduler as it was.
  std::set<std::int64_t> expected;
  for (const ScheduledChunk& c : out.chunks) {
    if (c.samples) expected.insert(c.request);
  }
  for (const auto& fork : out.forks) expected.insert(fork.second);
  std::set<std::int64_t> given;
  for (const SampledToken& s : sampled) {
    if (expected.count(s.request) == 0 || !given.insert(s.request).second) {
      throw Error(
          fmt::format("scheduler: a token sampled for request {}, which does not sample "
                      "this step (or was given two)",
                      s.request));
    }
  }
  if (given.size() != expected.size()) {
    throw Error(fmt::format("scheduler: {} sampled tokens for {} requests that sample",
                            sampled.size(), expected.size()));
  }
  for (const ScheduledChunk& c : out.chunks) {
    Request& r = mutable_request(c.request);
    if (r.status == RequestStatus::finished) continue;
    r.num_computed_tokens += c.num_tokens;
    kv_.cache_full_blocks(r, r.num_computed_tokens);
  }
  std::vector<std::int64_t> finished;
  for (const SampledToken& s : sampled) {
    Request& r = mutable_request(s.request);
    if (r.status == RequestStatus::finished) continue;
    r.output.push_back(s.pending ? kPendingToken : s.token);
    r.logprobs.push_back(s.pending ? 0.f : s.logprob);
    if (stops(r, r.output.back())) {
      finish(r);
      finished.push_back(r.id);
    }
  }
  return finished;
}

std::vector<std::int64_t> Scheduler::resolve(const std::vector<SampledToken>& values) {
  // A request finished since the step was queued had that step's sample dropped by update().
  const auto dropped = [](const Request& r) {
    return r.status == RequestStatus::finished &&
           (r.output.empty() || r.output.back() != kPendingToken);
  };
  for (const SampledToken& v : values) {
    const Request& r = request(v.request);
    if (!dropped(r) && (r.output.empty() || r.output.back() != kPendingToken)) {
      throw Error(fmt::format("scheduler: request {} has no pending token to resolve", r.id));
    }
  }
  std::vector<std::int64_t> finished;
  for (const SampledToken& v : values) {
    Request& r = mutable_request(v.request);
    if (dropped(r)) continue;
    r.output.back() = v.token;
    r.logprobs.back() = v.logprob;
    if (r.status != RequestStatus::finished && stops(r, v.token)) {
      finish(r);
      finished.push_back(r.id);
    }
  }
  return finished;
}

}  // namespace verlpp::rollout
