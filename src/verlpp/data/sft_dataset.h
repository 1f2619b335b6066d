// The datasets of verl's SFT trainer (verl.md §8.2): every row tokenized with the tokenizer's chat
// template into one sequence and a loss mask that is 1 on the tokens the model learns to produce.
//
// Multi-turn rows (verl's MultiTurnSFTDataset): data.messages_key holds chat messages. Message i's
// tokens are what rendering messages[:i+1] adds to the rendering of messages[:i]; an assistant
// message's tokens after the generation prompt (rendering messages[:i] with
// add_generation_prompt=True) are learned, everything else is context.
// Single-turn rows (verl's older SFTDataset): data.prompt_key holds the user text, rendered as
// [{"role": "user", "content": prompt}] with add_generation_prompt=True; data.response_key holds
// the answer, encoded as response + eos_token and learned entirely.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/data/row.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::data {

struct SftDatasetConfig {
  std::vector<std::string> files;                       // data.train_files / data.val_files
  std::string messages_key = "messages";                // multi-turn rows
  std::optional<std::string> prompt_key, response_key;  // single-turn rows, when both are set
  std::int64_t max_length = 1024;                       // data.max_length (tokens)
  std::string truncation = "error";                     // error | left (keep last) | right
  std::int64_t max_samples = -1;                        // > 0: the first max_samples rows
  bool ignore_input_ids_mismatch = false;
  tokenizer::OrderedJson apply_chat_template_kwargs = tokenizer::OrderedJson::object();
};

struct SftExample {
  std::vector<std::int32_t> input_ids;
  std::vector<std::uint8_t> loss_mask;  // aligned with input_ids: 1 = a token to learn
};

class SftDataset {
 public:
  // Reads and tokenizes every row. Throws verlpp::Error naming the file and line for a row
  // without the configured columns or with malformed messages, a sequence longer than max_length
  // with truncation=error, a row with nothing to learn, a chat template whose rendering of
  // messages[:i+1] does not extend that of messages[:i] (unless ignore_input_ids_mismatch: then
  // the tokens after the common prefix are used), a tokenizer without chat template or (for
  // single-turn rows) eos token, and an empty dataset.
  SftDataset(const SftDatasetConfig& config, const tokenizer::Tokenizer& tokenizer);

  std::int64_t size() const { return static_cast<std::int64_t>(examples_.size()); }
  const SftExample& example(std::int64_t index) const {
    return examples_.at(static_cast<std::size_t>(index));
  }

 private:
  std::vector<SftExample> examples_;
};

// The example of one row (exposed for tests); `where` names the row in errors.
SftExample encode_sft_row(const Row& row, const SftDatasetConfig& config,
                          const tokenizer::Tokenizer& tokenizer, const std::string& where);

}  // namespace verlpp::data
