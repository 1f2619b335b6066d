#include "verlpp/data/gsm8k_preprocess.h"

#include <fmt/format.h>

#include <array>
#include <filesystem>

#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/data/row_error.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

bool is_number_char(char c) { return (c >= '0' && c <= '9') || c == '.' || c == ','; }

// Length of (\-?[0-9\.\,]+) at `pos`, 0 when it does not match.
std::size_t number_at(std::string_view text, std::size_t pos) {
  std::size_t end = pos;
  if (end < text.size() && text[end] == '-') ++end;
  const std::size_t start = end;
  while (end < text.size() && is_number_char(text[end])) ++end;
  return end == start ? 0 : end - pos;
}

std::string string_field(const Row& row, const char* key, const RowOrigin& origin) {
  if (!row.contains(key) || !row[key].is_string()) {
    std::string keys;
    for (const auto& [name, value] : row.items()) keys += (keys.empty() ? "" : ", ") + name;
    throw Error(
        fmt::format("{}: expected a string '{}' (raw GSM8K rows have question and answer); "
                    "the row has: {}",
                    origin.describe(), key, keys));
  }
  return row[key].get<std::string>();
}

}  // namespace

std::optional<std::string> gsm8k_ground_truth(std::string_view answer) {
  for (std::size_t pos = answer.find("#### "); pos != std::string_view::npos;
       pos = answer.find("#### ", pos + 1)) {
    const std::size_t len = number_at(answer, pos + 5);
    if (len == 0) continue;
    std::string truth;
    for (char c : answer.substr(pos + 5, len)) {
      if (c != ',') truth += c;
    }
    return truth;
  }
  return std::nullopt;
}

Row make_gsm8k_row(const std::string& question, const std::string& answer, const std::string& split,
                   std::int64_t index) {
  const auto truth = gsm8k_ground_truth(answer);
  if (!truth) throw Error("GSM8K answer has no \"#### <number>\" final answer");
  Row row = Row::object();
  row["data_source"] = "openai/gsm8k";
  row["prompt"] = Row::array(
      {Row{{"role", "user"}, {"content", question + " " + std::string(kGsm8kInstruction)}}});
  row["ability"] = "math";
  row["reward_model"] = Row{{"style", "rule"}, {"ground_truth", *truth}};
  row["extra_info"] =
      Row{{"split", split}, {"index", index}, {"answer", answer}, {"question", question}};
  return row;
}

std::vector<std::string> preprocess_gsm8k(const std::string& input_dir,
                                          const std::string& output_dir, bool parquet) {
  namespace fs = std::filesystem;
  require_not_same(output_dir, "the output folder", input_dir, "the input folder");
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec)
    throw Error(fmt::format("{}: cannot create output directory: {}", output_dir, ec.message()));
  // Both splits are read and converted before anything is written, so a missing or bad test file
  // leaves no train file behind that looks like a finished conversion.
  const std::array<std::string, 2> splits = {"train", "test"};
  std::array<std::vector<Row>, 2> converted;
  for (std::size_t s = 0; s < splits.size(); ++s) {
    const RowFile raw = read_rows((fs::path(input_dir) / (splits[s] + ".jsonl")).string());
    for (std::size_t i = 0; i < raw.rows.size(); ++i) {
      const std::string question = string_field(raw.rows[i], "question", raw.origins[i]);
      const std::string answer = string_field(raw.rows[i], "answer", raw.origins[i]);
      converted[s].push_back(naming_row(raw.origins[i].describe(), [&] {
        return make_gsm8k_row(question, answer, splits[s], static_cast<std::int64_t>(i));
      }));
    }
  }
  std::vector<std::string> written;
  for (std::size_t s = 0; s < splits.size(); ++s) {
    const auto files = write_split(output_dir, splits[s], converted[s], parquet);
    written.insert(written.end(), files.begin(), files.end());
  }
  return written;
}

}  // namespace verlpp::data
