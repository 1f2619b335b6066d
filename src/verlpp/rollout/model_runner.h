// Runs the model for one scheduler step over the paged cache (vLLM v1's model runner,
// v1/worker/gpu_model_runner.py): the step's prefills (whole prompts, the pieces of chunked
// prefills, prompts after a prefix-cache hit, and after a preemption the prompt and the tokens
// sampled so far) in one packed prefill whose attention also reads each request's cached tokens,
// its one-token decodes in one decode step over the requests' block tables (eager or from CUDA
// graphs, paged_decode.h), then the forks' block and state-slot copies; returns the logits the
// sampler needs.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/kv_cache.h"
#include "verlpp/rollout/kv_cache_manager.h"
#include "verlpp/rollout/paged_decode.h"
#include "verlpp/rollout/scheduler.h"

namespace verlpp::rollout {

class ModelRunner {
 public:
  // `cache` must outlive the runner; its block size is the KV manager's.
  ModelRunner(const model::CausalLM& model, PagedKVCache& cache);
  ~ModelRunner();

  // From now on replays decode steps from CUDA graphs (GraphedPagedDecoder, its arguments); a
  // step the graphs cannot take (capture fails) falls back to eager decoding with a warning.
  void use_cuda_graphs(int64_t max_rows, int64_t max_pages, int64_t scratch_block,
                       int64_t scratch_slot);

  // Row i of `logits` [M, vocab] (the model's dtype) is what requests[i] samples from: every chunk
  // that samples, then every forked child (its parent's row).
  struct StepLogits {
    std::vector<std::int64_t> requests;
    at::Tensor logits;
  };
  // The previous step's sampled tokens, still on the device (asynchronous scheduling): request id
  // -> its row of `tokens` [M] int64.
  struct DeviceTokens {
    at::Tensor tokens;
    std::map<std::int64_t, std::int64_t> rows;
  };
  // A decode whose token is pending (kPendingToken) reads it from `previous`. Throws
  // verlpp::Error for a pending token `previous` does not hold or a prefill would need, and (from
  // CausalLM::prefill) for a chunk after cached tokens of a prompt with images (the scheduler
  // never makes one: scheduler.h).
  StepLogits run(const SchedulerOutput& out, const Scheduler& scheduler, const KVCacheManager& kv,
                 const DeviceTokens* previous = nullptr);

 private:
  at::Tensor decode(const PagedDecodeInputs& in);

  const model::CausalLM& model_;
  PagedKVCache& cache_;
  std::unique_ptr<GraphedPagedDecoder> graphed_;
};

}  // namespace verlpp::rollout
