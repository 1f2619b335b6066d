// Fitting tokenized prompts into data.max_prompt_length (verl/utils/torch_functional.py
// postprocess_data and release/v0.6.1 rl_dataset.py's raw_prompt_ids truncation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace verlpp::data {

// data.truncation: what to do with a prompt longer than max_prompt_length.
//   error: raise; left: keep the last L ids; right: keep the first L;
//   middle: keep the first floor(L/2) and the last L - floor(L/2).
enum class Truncation { error, left, right, middle };

// Parses "error" / "left" / "right" / "middle"; throws verlpp::Error naming data.truncation.
Truncation parse_truncation(const std::string& name);

// How the error for a prompt over the limit names the limit and what to do: the trainer's data.*
// keys by default; `verlpp generate` names its own flag.
struct OverlongPromptWording {
  std::string limit = "data.max_prompt_length";
  std::string remedy =
      "(data.truncation=error); drop such rows with data.filter_overlong_prompts=true or set "
      "data.truncation to left/right/middle";
};

// `ids` cut to at most `max_length` by `truncation`. With Truncation::error and a longer prompt,
// throws verlpp::Error "<where>: prompt is N tokens, longer than <limit>=L <remedy>".
std::vector<std::int32_t> truncate_ids(const std::vector<std::int32_t>& ids,
                                       std::int64_t max_length, Truncation truncation,
                                       const std::string& where,
                                       const OverlongPromptWording& wording = {});

// One prompt as the actor sees it: exactly max_length positions, left-padded.
struct PaddedPrompt {
  std::vector<std::int64_t> input_ids;       // pad_id on the left, then the (truncated) prompt
  std::vector<std::int64_t> attention_mask;  // 0 on padding, 1 on the prompt
  std::vector<std::int64_t> position_ids;    // clip(cumsum(attention_mask) - 1, min=0)
};

// postprocess_data(max_length, pad_token_id, left_pad=True, truncation) for one sequence.
PaddedPrompt left_pad(const std::vector<std::int32_t>& ids, std::int64_t max_length,
                      std::int32_t pad_id, Truncation truncation, const std::string& where,
                      const OverlongPromptWording& wording = {});

}  // namespace verlpp::data
