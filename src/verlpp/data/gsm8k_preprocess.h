// GSM8K to verl's row schema, as verl's examples/data_preprocess/gsm8k.py writes it (verl.md §6.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verlpp/data/row.h"

namespace verlpp::data {

// Appended to each question after one space (gsm8k.py's instruction_following).
inline constexpr std::string_view kGsm8kInstruction =
    "Let's think step by step and output the final answer after \"####\".";

// gsm8k.py's extract_solution: the first match of "#### (\-?[0-9\.\,]+)" in the reference answer,
// the part after "#### ", commas removed ("#### 1,080" -> "1080"). nullopt when there is none.
std::optional<std::string> gsm8k_ground_truth(std::string_view answer);

// {"data_source": "openai/gsm8k",
//  "prompt": [{"role": "user", "content": question + " " + kGsm8kInstruction}],
//  "ability": "math", "reward_model": {"style": "rule", "ground_truth": ...},
//  "extra_info": {"split": split, "index": index, "answer": answer, "question": question}}.
// Throws verlpp::Error when the answer has no "#### <number>".
Row make_gsm8k_row(const std::string& question, const std::string& answer, const std::string& split,
                   std::int64_t index);

// Reads INPUT_DIR/{train,test}.jsonl (raw GSM8K: {"question", "answer"} per line) and writes
// OUTPUT_DIR/{train,test}.jsonl in verl's schema, plus {train,test}.parquet when `parquet` (needs
// a build with Parquet support). `index` counts rows within each split from 0. Returns the files
// written. Throws verlpp::Error naming the file and line of a row without question/answer or
// without a "#### <number>" answer.
std::vector<std::string> preprocess_gsm8k(const std::string& input_dir,
                                          const std::string& output_dir, bool parquet);

}  // namespace verlpp::data
