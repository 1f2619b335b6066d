// verl's RLHFDataset (verl/utils/dataset/rl_dataset.py; tokenizing as release v0.6.1 did): rows
// of data.train_files concatenated, each prompt rendered with the tokenizer's chat template
// (add_generation_prompt=True), optionally filtered by length, and collated into a Batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verlpp/data/batch.h"
#include "verlpp/data/prompt_encoding.h"
#include "verlpp/data/row.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::data {

// The data.* keys the dataset reads (names and meanings as verl's legacy_data.yaml).
struct RLHFDatasetConfig {
  std::vector<std::string> files;     // data.train_files / data.val_files
  std::string prompt_key = "prompt";  // column holding the chat messages
  std::int64_t max_prompt_length = 512;
  bool filter_overlong_prompts = false;  // drop rows whose templated prompt is longer
  Truncation truncation = Truncation::error;
  bool return_raw_chat = true;    // add the messages as non-tensor "raw_prompt"
  std::int64_t max_samples = -1;  // data.train_max_samples; > 0 keeps that many rows
  bool shuffle = true;            // with max_samples: a seeded random subset
  std::int64_t seed = 1;          // data.seed (null in verl means 1)
  tokenizer::OrderedJson apply_chat_template_kwargs = tokenizer::OrderedJson::object();
};

class RLHFDataset {
 public:
  // Reads and checks every row: the prompt_key column must exist (the error names the file, line
  // and the columns the row has) and hold a non-empty list of {"role": str, "content": str}.
  // max_samples > 0 keeps the first max_samples rows, or with shuffle a subset drawn by
  // at::randperm seeded with `seed` (verl draws with numpy; the subset differs). With
  // filter_overlong_prompts, rows whose templated prompt has more than max_prompt_length tokens
  // are dropped. Throws verlpp::Error for bad rows, a tokenizer without chat template, or when no
  // row is left.
  RLHFDataset(const RLHFDatasetConfig& config, const tokenizer::Tokenizer& tokenizer);

  std::int64_t size() const { return static_cast<std::int64_t>(rows_.size()); }
  const Row& row(std::int64_t index) const { return rows_.at(static_cast<std::size_t>(index)); }
  const RowOrigin& origin(std::int64_t index) const {
    return origins_.at(static_cast<std::size_t>(index));
  }
  std::int64_t filtered_out() const { return filtered_out_; }

  // The chat-templated prompt text of a row (add_generation_prompt=True).
  std::string prompt_text(std::int64_t index) const;

  // Rows `indices` as verl's collate_fn of __getitem__ returns them:
  //   tensors input_ids, attention_mask, position_ids: int64 [B, max_prompt_length], left-padded
  //     with the tokenizer's pad id (its eos id when it has no pad token);
  //   non-tensors: every column except prompt_key (null in rows that lack it), "raw_prompt_ids"
  //   (the truncated ids, no
  //     padding), "raw_prompt" (the messages, when return_raw_chat) and "index"
  //     (extra_info.index, else 0).
  // Throws verlpp::Error naming the row for a prompt longer than max_prompt_length with
  // truncation=error.
  Batch collate(const std::vector<std::int64_t>& indices) const;

 private:
  std::vector<std::int32_t> encode(std::int64_t index) const;

  RLHFDatasetConfig config_;
  const tokenizer::Tokenizer& tokenizer_;
  std::int32_t pad_id_ = 0;
  std::vector<Row> rows_;
  std::vector<RowOrigin> origins_;
  std::int64_t filtered_out_ = 0;
};

}  // namespace verlpp::data
