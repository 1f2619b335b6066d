// The rollout engine loop (vLLM v1's EngineCore step: schedule, run the model, sample, update):
// every prompt row becomes a Request (the n samples of a prompt forked from its first row's
// prefill when rollout.enable_prefix_caching), the scheduler (scheduler.h) picks each step's work
// under max_num_seqs, the KV manager (kv_cache_manager.h) hands out blocks of a paged cache and
// state slots, the model runner (model_runner.h) computes, the sampler (sampling.h) draws, and
// finished requests make room for waiting ones (continuous batching).
#pragma once

#include <cstdint>

#include "verlpp/data/batch.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/rollout/generation_stop.h"
#include "verlpp/rollout/sampling_params.h"

namespace verlpp::rollout {

// What one engine call did (vLLM's scheduler stats).
struct EngineStats {
  std::int64_t steps = 0;                    // scheduler steps
  std::int64_t max_step_tokens = 0;          // the most tokens one step computed
  std::int64_t prefix_cache_hit_tokens = 0;  // prompt tokens found in the prefix cache
  std::int64_t preemptions = 0;
};

// generate_sequences (rollout.h) through the engine: the same result batch and the same per-row
// random draws (row_uniforms(seed, first_row + row, response index)). The cache holds
// params.kv_cache_blocks blocks of 16 tokens, by default enough for the max_num_seqs rows that run
// at once (nothing is preempted), on CUDA at most what params.gpu_memory_utilization leaves; on
// the CPU a cache larger than the machine's memory is an error naming response_length, before
// anything is allocated. bf16/fp16 CUDA models replay decode steps from CUDA graphs
// (params.use_cuda_graph). With `stats`, fills it in. Throws verlpp::Error as generate_sequences
// does, and when one row alone needs more blocks than there are; GenerationStopped when `stop`
// returns true before a scheduler step.
data::Batch generate_with_engine(const model::CausalLM& model, const data::Batch& prompts,
                                 const SamplingParams& params, std::uint64_t seed,
                                 std::int64_t first_row, EngineStats* stats = nullptr,
                                 const StopCheck& stop = {});

}  // namespace verlpp::rollout
