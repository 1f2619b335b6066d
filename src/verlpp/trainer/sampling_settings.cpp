#include "verlpp/trainer/sampling_settings.h"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "verlpp/core/error.h"

namespace verlpp::trainer {

rollout::SamplingParams sampling_settings(const config::RolloutConfig& rollout, bool validate,
                                          std::vector<std::int32_t> eos_token_ids,
                                          std::int32_t pad_token_id) {
  const config::SamplingConfig& s = validate ? rollout.val_kwargs : rollout.sampling;
  const std::string section =
      validate ? "actor_rollout_ref.rollout.val_kwargs." : "actor_rollout_ref.rollout.";
  if (!(s.temperature >= 0.0)) {
    throw Error(fmt::format("{}temperature: expected >= 0, got {}", section, s.temperature));
  }
  if (rollout.max_num_seqs && *rollout.max_num_seqs < 1) {
    throw Error(fmt::format("actor_rollout_ref.rollout.max_num_seqs: expected >= 1, got {}",
                            *rollout.max_num_seqs));
  }
  if (!(rollout.gpu_memory_utilization > 0.0 && rollout.gpu_memory_utilization <= 1.0)) {
    throw Error(
        fmt::format("actor_rollout_ref.rollout.gpu_memory_utilization: expected a value in (0, 1], "
                    "got {}",
                    rollout.gpu_memory_utilization));
  }
  if (s.top_k < -1) {  // vLLM's SamplingParams: -1 or 0 is off, else at least 1
    throw Error(
        fmt::format("{}top_k: expected -1 (off) or a count >= 1, got {}", section, s.top_k));
  }
  if (!(s.top_p > 0.0 && s.top_p <= 1.0)) {
    throw Error(fmt::format("{}top_p: expected a value in (0, 1], got {}", section, s.top_p));
  }
  if (rollout.response_length < 1) {
    throw Error(fmt::format("actor_rollout_ref.rollout.response_length: expected >= 1, got {}",
                            rollout.response_length));
  }
  rollout::SamplingParams p;
  p.temperature = s.temperature;
  p.top_k = s.top_k;
  p.top_p = s.top_p;
  p.do_sample = s.do_sample;
  p.ignore_eos = rollout.ignore_eos;
  p.max_response_length = rollout.response_length;
  // A configuration without max_model_len or prompt_length (`verlpp generate`) has no limit.
  p.max_model_len =
      rollout.has_max_model_len() || rollout.prompt_length > 0 ? rollout.model_len() : 0;
  p.eos_token_ids = std::move(eos_token_ids);
  p.pad_token_id = pad_token_id;
  p.calculate_log_probs = rollout.calculate_log_probs;
  p.max_num_seqs = rollout.max_num_seqs.value_or(0);
  p.use_cuda_graph = !rollout.enforce_eager;
  p.enable_prefix_caching = rollout.enable_prefix_caching;
  p.max_num_batched_tokens = rollout.max_num_batched_tokens;
  p.enable_chunked_prefill = rollout.enable_chunked_prefill;
  p.gpu_memory_utilization = rollout.gpu_memory_utilization;
  return p;
}

}  // namespace verlpp::trainer
