// The datasets of verl's SFT trainer (verl.md §8.2): every row tokenized with the tokenizer's chat
// template into one sequence and a loss mask that is 1 on the tokens the model learns to produce.
//
// Multi-turn rows (verl's MultiTurnSFTDataset): data.messages_key holds chat messages. Message i's
// tokens are what rendering messages[:i+1] adds to the rendering of messages[:i]; an assistant
// message's tokens after the generation prompt (rendering messages[:i] with
// add_generation_prompt=True) are learned, everything else is context.
// A row's data.tools_key column (tool schemas), when present and not null, goes to every rendering
// as `tools`; its data.enable_thinking_key column (a boolean; null: unset), or when the row has no
// such column data.enable_thinking_default, as the template variable enable_thinking (verl's
// MultiTurnSFTDataset). An assistant message first has no messages[:0] to render: its context is
// its own rendering up to the end of the template's generation prompt (what rendering a user turn
// with add_generation_prompt=True adds; nothing when that is empty).
// Single-turn rows (verl's older SFTDataset): data.prompt_key holds the user text, rendered as
// [{"role": "user", "content": prompt}] with add_generation_prompt=True; data.response_key holds
// the answer, encoded as response + eos_token and learned entirely. prompt_dict_keys /
// response_dict_keys, when given, lead into a column of nested maps (["question"]: the
// column's "question" entry).
// A row with no token left to learn after truncation is kept, as verl keeps it (it adds nothing
// to the loss); the dataset says how many there are.
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
  std::vector<std::string> prompt_dict_keys, response_dict_keys;  // into nested single-turn columns
  std::optional<std::string> tools_key = "tools";  // multi-turn rows' tool schemas (null: none)
  std::optional<std::string> enable_thinking_key = "enable_thinking";  // their thinking switch
  std::optional<bool> enable_thinking_default;                         // rows without that column
  std::int64_t max_length = 1024;                                      // data.max_length (tokens)
  std::string truncation = "error";  // error | left (keep last) | right
  std::int64_t max_samples = -1;     // > 0: the first max_samples rows
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
  // without the configured columns or with malformed messages, tools or enable_thinking, a
  // sequence longer than max_length with truncation=error, a chat template whose rendering of
  // messages[:i+1] does not extend that of messages[:i] (unless ignore_input_ids_mismatch: then
  // the tokens after the common prefix are used), a tokenizer without chat template or (for
  // single-turn rows) eos token, an empty dataset, and one in which no row has a token to learn.
  // Rows with nothing to learn are counted in unlearnable_rows() and described by
  // first_unlearnable().
  SftDataset(const SftDatasetConfig& config, const tokenizer::Tokenizer& tokenizer);

  std::int64_t size() const { return static_cast<std::int64_t>(examples_.size()); }
  std::int64_t unlearnable_rows() const { return unlearnable_rows_; }
  const std::string& first_unlearnable() const { return first_unlearnable_; }  // "file line N"
  const SftExample& example(std::int64_t index) const {
    return examples_.at(static_cast<std::size_t>(index));
  }

 private:
  std::vector<SftExample> examples_;
  std::int64_t unlearnable_rows_ = 0;
  std::string first_unlearnable_;
};

// The example of one row (exposed for tests); `where` names the row in errors. Its loss mask may
// mark nothing to learn (learned_tokens() 0).
SftExample encode_sft_row(const Row& row, const SftDatasetConfig& config,
                          const tokenizer::Tokenizer& tokenizer, const std::string& where);

// The tokens `example` learns: its marked tokens after the first position (the first token is
// never predicted); what each adds to the SFT loss's batch_num_tokens.
std::int64_t learned_tokens(const SftExample& example);

}  // namespace verlpp::data
