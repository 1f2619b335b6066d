// trainer.rollout_data_dir and trainer.validation_data_dir (verl's RayPPOTrainer._dump_generations
// and _log_rollout_data): the generations of a training step or of a validation, one JSON object
// per row in {dir}/{step}.jsonl, with verl's fields in verl's order: input (the prompt) and output
// (the response), both decoded without special tokens; gts (reward_model.ground_truth as the data
// has it, null when absent); score (the row's summed token_level_scores); step; then each
// reward_extra_info value of the row ("acc", a named reward's values).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "verlpp/data/batch.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::trainer {

// The JSONL lines of `batch`'s rows: needs tensors prompts [B, P], responses and response_mask
// [B, R] and attention_mask [B, P + R]; `scores` [B] and each `extra` value list [B] (lists of
// another length are left out, as verl does).
std::vector<nlohmann::ordered_json> generation_records(
    const data::Batch& batch, const tokenizer::Tokenizer& tokenizer,
    const std::vector<double>& scores, const std::map<std::string, std::vector<double>>& extra,
    std::int64_t step);

// Writes the records to {dir}/{step}.jsonl, making `dir` when missing; an earlier file of that step
// is replaced whole (never left half-written). Throws verlpp::Error naming the path when it cannot.
void write_generations(const std::string& dir, std::int64_t step,
                       const std::vector<nlohmann::ordered_json>& records);

}  // namespace verlpp::trainer
