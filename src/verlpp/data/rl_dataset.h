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
#include "verlpp/data/row_images.h"
#include "verlpp/tokenizer/tokenizer.h"

namespace verlpp::data {

// The non-tensor column collate adds (verlpp's, not verl's): each row's file and line
// ("train.jsonl line 5"), so that an error at reward time names the data row, not its place in
// the repeated batch.
inline constexpr const char* kDataOrigin = "data_origin";

// The data.* keys the dataset reads (names and meanings as verl's legacy_data.yaml).
struct RLHFDatasetConfig {
  std::vector<std::string> files;     // data.train_files / data.val_files
  std::string prompt_key = "prompt";  // column holding the chat messages
  std::int64_t max_prompt_length = 512;
  bool filter_overlong_prompts = false;  // drop rows whose templated prompt is longer
  Truncation truncation = Truncation::error;
  OverlongPromptWording overlong_wording;  // how a prompt over the limit is reported
  bool return_raw_chat = true;             // add the messages as non-tensor "raw_prompt"
  std::int64_t max_samples = -1;           // data.train_max_samples; > 0 keeps that many rows
  bool shuffle = true;                     // with max_samples: a seeded random subset
  std::int64_t seed = 1;                   // data.seed (null in verl means 1)
  tokenizer::OrderedJson apply_chat_template_kwargs = tokenizer::OrderedJson::object();
  ImageSettings images;  // data.image_key and the image processing (row_images.h)
};

class RLHFDataset {
 public:
  // Reads and checks every row: the prompt_key column must exist (the error names the file, line
  // and the columns the row has) and hold a non-empty list of {"role": str, "content": str}.
  // max_samples > 0 keeps the first max_samples rows, or with shuffle a subset drawn by
  // at::randperm seeded with `seed` (verl draws with numpy; the subset differs). With
  // filter_overlong_prompts, rows whose templated prompt has more than max_prompt_length tokens
  // are dropped (a row's image pad tokens counted as the rollout will see them; verl estimates
  // them with data.image_patch_size). Rows with images (the data.image_key column, row_images.h)
  // must hold one "<image>" placeholder per image. Throws verlpp::Error naming the row for bad
  // rows and images (a count that does not match the placeholders, an undecodable or missing
  // image), for a tokenizer without chat template (or without the image pad token when rows hold
  // images), or when no row is left.
  RLHFDataset(const RLHFDatasetConfig& config, const tokenizer::Tokenizer& tokenizer);

  std::int64_t size() const { return static_cast<std::int64_t>(rows_.size()); }
  const Row& row(std::int64_t index) const { return rows_.at(static_cast<std::size_t>(index)); }
  const RowOrigin& origin(std::int64_t index) const {
    return origins_.at(static_cast<std::size_t>(index));
  }
  std::int64_t filtered_out() const { return filtered_out_; }

  // The chat-templated prompt text of a row (add_generation_prompt=True); each image is one pad
  // token there.
  std::string prompt_text(std::int64_t index) const;
  // Whether any row holds images.
  bool has_images() const { return image_pad_id_ >= 0; }

  // Rows `indices` as verl's collate_fn of __getitem__ returns them:
  //   tensors input_ids, attention_mask, position_ids: int64 [B, max_prompt_length], left-padded
  //     with the tokenizer's pad id (its eos id when it has no pad token);
  //   non-tensors: every column except prompt_key and image_key (null in rows that lack it),
  //     "raw_prompt_ids" (the truncated ids, no padding), "raw_prompt" (the messages, when
  //     return_raw_chat) and "index" (extra_info.index, else 0);
  //   when the dataset has images, per-row tensors pixel_values fp32 [patches, C T P P] and
  //     image_grid_thw int64 [images, 3] (row_image_tensors; empty for a row without images),
  //     the images processed as verl's rollout does and each image's pad token expanded to its
  //     run of t h w / merge^2 pad tokens in input_ids.
  // Throws verlpp::Error naming the row for a prompt longer than max_prompt_length with
  // truncation=error, or with images whatever the truncation (verl's rollout refuses to cut a
  // multimodal prompt).
  Batch collate(const std::vector<std::int64_t>& indices) const;

 private:
  // The row's prompt ids with image pads expanded, and its processed images.
  struct EncodedRow {
    std::vector<std::int32_t> ids;
    std::vector<ProcessedImage> images;
  };
  EncodedRow encode(std::int64_t index) const;
  // The row's chat messages, with content lists where it has images (`image_count`, from
  // image_refs).
  Row messages(std::int64_t index, std::size_t image_count) const;
  // Tokens of each row's prompt as the rollout sees it (filter_overlong_prompts).
  std::vector<std::int64_t> prompt_lengths() const;

  RLHFDatasetConfig config_;
  const tokenizer::Tokenizer& tokenizer_;
  std::int32_t pad_id_ = 0;
  std::int32_t image_pad_id_ = -1;  // >= 0 when a row holds images
  std::vector<Row> rows_;
  std::vector<RowOrigin> origins_;
  std::int64_t filtered_out_ = 0;
};

}  // namespace verlpp::data
