// A dataset row in verl's schema (verl examples/data_preprocess/*.py; verl.md §6.1):
//   data_source: str, prompt: [{"role": str, "content": str}, ...], ability: str,
//   reward_model: {"style": str, "ground_truth": str}, extra_info: {...}, plus any other columns.
// Rows are JSON objects whose keys keep the file's column order.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace verlpp::data {

using Row = nlohmann::ordered_json;

// Where a row came from, for error messages: "FILE line N" (JSONL) or "FILE row N" (0-based).
struct RowOrigin {
  std::string file;
  std::string position;
  std::string describe() const { return file + " " + position; }
};

struct ChatMessage {
  std::string role;
  std::string content;
};

}  // namespace verlpp::data
