// What one generation call does with each row: the sampling and stopping rules and the engine's
// settings, as plain values (verl's actor_rollout_ref.rollout keys are translated into it once, by
// the trainer: trainer/sampling_settings.h).
#pragma once

#include <cstdint>
#include <vector>

namespace verlpp::rollout {

struct SamplingParams {
  double temperature = 1.0;  // 0 (or do_sample = false) means greedy
  std::int64_t top_k = -1;   // <= 0: off
  double top_p = 1.0;        // 1: off
  bool do_sample = true;
  bool ignore_eos = false;
  std::int64_t max_response_length = 0;  // R: response_length
  // rollout.max_model_len (verl's default: prompt_length + response_length): prompt + response
  // tokens a row may hold, as vLLM applies it: a longer prompt is an error, a response stops
  // where prompt + response reach it. <= 0: no limit.
  std::int64_t max_model_len = 0;
  std::vector<std::int32_t> eos_token_ids;  // tokenizer eos + generation_config eos (any of them)
  std::int32_t pad_token_id = 0;
  bool calculate_log_probs = true;
  // rollout.max_num_seqs: rows generated at once (the KV cache is sized for this many; larger
  // batches are generated in consecutive chunks). <= 0: all rows at once.
  std::int64_t max_num_seqs = 0;
  // Engine setting, not a verl key: decode steps between removals of finished rows from the decode
  // batch (each removal waits for the device). <= 0: every step on the CPU, every 8 on CUDA;
  // finished rows still in the batch are computed and their output discarded.
  std::int64_t compaction_interval = 0;
  // Replay decode steps from CUDA graphs (bf16/fp16 CUDA models whose architecture allows it,
  // CausalLM::decode_capturable; builds with CUDA graphs and flash attention over the KV cache);
  // false (rollout.enforce_eager): launch every kernel each step.
  bool use_cuda_graph = true;
  // rollout.enable_prefix_caching: rows with the same prompt (the n samples of a GRPO prompt) are
  // prefilled once and the others copy its generation state, and (models without linear-attention
  // layers, prompts without images) a prompt whose leading full blocks of 16 tokens equal a
  // cached prompt's reuses their keys and values; false prefills every row whole.
  bool enable_prefix_caching = true;
  // rollout.max_num_batched_tokens: tokens one engine step computes at most (one per decoding row,
  // plus prefill tokens); <= 0: no limit. rollout.enable_chunked_prefill: a prefill longer than
  // what is left of the budget is computed in pieces over several steps; false, or a prompt with
  // images: it waits for a step with room for all of it (with images the budget is raised to the
  // longest prompt + response, so that every row can run).
  std::int64_t max_num_batched_tokens = 0;
  bool enable_chunked_prefill = true;
  // Engine setting, not a verl key (vLLM's num_gpu_blocks_override): KV blocks of 16 tokens in the
  // engine's paged cache (engine.h); <= 0: enough for every row at once. With fewer, the scheduler
  // preempts the latest admitted rows when the blocks run out and recomputes them later.
  std::int64_t kv_cache_blocks = 0;
  // rollout.gpu_memory_utilization (vLLM's definition): on CUDA, without kv_cache_blocks, the
  // engine's cache takes at most this fraction of the GPU's memory less what is allocated when
  // generation starts (the weights and, in the trainer, the actor's other state); fewer blocks
  // than every row needs at once means preemption, fewer than one row needs an error. In (0, 1].
  double gpu_memory_utilization = 0.5;
  // Engine setting, not a verl key: generate in static batches instead of through the engine
  // (engine.h): a KV-cache slot per row sized for the longest, one batch per max_num_seqs rows,
  // CUDA-graph decode. The rollout before the engine, kept as the benchmarks' baseline.
  bool static_batches = false;
  // Engine setting, not a verl key: false recomputes the whole prefix of every row at every step
  // instead of reading the KV cache (a reference path for checking the cache; slow).
  bool use_kv_cache = true;
};

}  // namespace verlpp::rollout
