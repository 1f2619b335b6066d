// geo3k to verl's row schema, as verl's examples/data_preprocess/geo3k.py writes it
// (multimodal.md §6.1): the public hiyouga/geometry3k dataset's rows (problem, answer, images)
// become verl rows whose prompt holds the problem and verl's instruction and whose images the
// dataset reads through data.image_key (row_images.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "verlpp/data/row.h"

namespace verlpp::data {

// Appended to each problem after one space (geo3k.py's instruction_following).
inline constexpr std::string_view kGeo3kInstruction =
    "You FIRST think about the reasoning process as an internal monologue and then provide the "
    "final answer. The reasoning process MUST BE enclosed within <think> </think> tags. The final "
    "answer MUST BE put in \\boxed{}.";

// {"data_source": "hiyouga/geometry3k",
//  "prompt": [{"role": "user", "content": problem + " " + kGeo3kInstruction}],
//  "images": images, "ability": "math",
//  "reward_model": {"style": "rule", "ground_truth": answer},
//  "extra_info": {"split": split, "index": index, "answer": answer, "question": problem}}.
Row make_geo3k_row(const std::string& problem, const std::string& answer, Row images,
                   const std::string& split, std::int64_t index);

// Converts the public dataset: for each split of train and test, INPUT_DIR (or INPUT_DIR/data, the
// hub's layout) holds SPLIT.parquet, SPLIT-*.parquet shards (Hugging Face's files; a build with
// Parquet support) or SPLIT.jsonl with problem, answer and images columns; images are
// {"bytes", "path"} structs or path strings. Writes OUTPUT_DIR/SPLIT.jsonl in verl's schema with
// each image's bytes written to OUTPUT_DIR/images/SPLIT_INDEX_K.EXT (PNG or JPEG, by signature)
// and referenced by that relative path (JSON Lines cannot hold bytes), plus SPLIT.parquet when
// `parquet`. Returns the files written. Throws verlpp::Error naming the file and row of a row
// without problem/answer/images, an image entry without bytes or path, or a missing split.
std::vector<std::string> preprocess_geo3k(const std::string& input_dir,
                                          const std::string& output_dir, bool parquet);

}  // namespace verlpp::data
