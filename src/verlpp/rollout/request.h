// One sequence the rollout engine generates (vLLM v1's Request, v1/request.py): its prompt, what
// has been sampled, how far its tokens are in the KV cache, and why it stopped.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "verlpp/model/causal_lm.h"

namespace verlpp::rollout {

// An output token sampled on the device but not yet read by the host (asynchronous scheduling:
// scheduler.h Scheduler::resolve gives its value).
inline constexpr std::int64_t kPendingToken = -1;

// The images of a prompt (a vision-language model's row): their pixels and grids, and the
// prompt's M-RoPE streams (model/mrope_positions.h). Shared by the n samples of the prompt.
struct PromptImages {
  model::ImageInputs inputs;
  at::Tensor mrope_positions;  // [3, prompt length] int64, CPU
};

enum class RequestStatus {
  waiting,   // not admitted yet, or preempted (its state freed; recomputed on readmission)
  running,   // holds KV blocks (and a state slot) and is scheduled every step
  finished,  // stopped: an eos token (unless ignore_eos) or max_tokens sampled
};

struct Request {
  std::int64_t id = 0;                         // the batch row it answers
  std::vector<std::int64_t> prompt;            // token ids
  std::vector<std::int64_t> prompt_positions;  // their position ids (empty: 0, 1, ...); with
                                               // images the first M-RoPE stream, whose last
                                               // value decoding continues from
  std::shared_ptr<const PromptImages> images;  // null: a text prompt
  std::uint64_t prefix_key = 0;  // hashed with the prompt's blocks (e.g. non-standard positions)
  std::vector<std::int64_t> output;  // sampled tokens (kept across preemption); the last may be
                                     // kPendingToken
  std::vector<float> logprobs;       // their log-probs
  std::int64_t max_tokens = 0;       // response_length
  RequestStatus status = RequestStatus::waiting;
  std::int64_t num_computed_tokens = 0;  // tokens whose KV (and state) is in the cache
  // The request whose prompt prefill it shares (the first of the n samples of a GRPO prompt): on
  // admission it is forked from that request right after the latter's prefill completes.
  std::optional<std::int64_t> fork_of;
  std::int64_t num_preemptions = 0;

  std::int64_t num_tokens() const {
    return static_cast<std::int64_t>(prompt.size() + output.size());
  }
  // The position id of token i of prompt + output: the prompt's, then one more each.
  std::int64_t position(std::int64_t i) const {
    const auto p = static_cast<std::int64_t>(prompt.size());
    if (prompt_positions.empty()) return i;
    return i < p ? prompt_positions[static_cast<size_t>(i)] : prompt_positions.back() + (i - p + 1);
  }
  // The token at position i of prompt + output.
  std::int64_t token(std::int64_t i) const {
    const auto p = static_cast<std::int64_t>(prompt.size());
    return i < p ? prompt[static_cast<size_t>(i)] : output[static_cast<size_t>(i - p)];
  }
};

}  // namespace verlpp::rollout
