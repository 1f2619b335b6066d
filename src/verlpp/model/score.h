// Log-likelihood scoring of given responses (`verlpp model score`): for each (prompt, response)
// the log-probability of every response token given everything before it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/model/causal_lm.h"

namespace verlpp::model {

struct ScoreRequest {
  std::vector<int64_t> prompt_ids;    // at least one token
  std::vector<int64_t> response_ids;  // may be empty
};

struct ScoreResult {
  std::vector<double> logprobs;  // one per response token
  double sum = 0.0;
};

// Reads JSON lines {"prompt_ids": [...], "response_ids": [...]} (blank lines skipped; with
// `responses` false only prompt_ids is read: `verlpp generate --input`). Throws verlpp::Error
// naming the file and line for invalid JSON, a missing/mistyped key, an empty prompt, or an id
// outside [0, vocab_size), a folder or device in place of the file, or (max_tokens > 0) a row of
// more than max_tokens prompt + response ids (the model's max_position_embeddings: positions past
// it are outside what the model was built for, and a row of millions of ids exhausts memory).
std::vector<ScoreRequest> read_score_requests(const std::string& path, int64_t vocab_size,
                                              bool responses = true, int64_t max_tokens = 0);

// Packs requests into forward passes of at most max_batch_tokens tokens (a longer request runs
// alone), no gradients; log-probs at `temperature` via chunked_logprob_entropy.
std::vector<ScoreResult> score(const CausalLM& model, const std::vector<ScoreRequest>& requests,
                               double temperature, int64_t max_batch_tokens = 8192);

}  // namespace verlpp::model
