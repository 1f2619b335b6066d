#include "verlpp/data/row_reader.h"

#include <fmt/format.h>
#include <glob.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_parse.h"
#include "verlpp/data/parquet_io.h"

namespace verlpp::data {
namespace {

bool is_blank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open data file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void add_row(RowFile& out, Row row, const std::string& path, const std::string& position) {
  if (!row.is_object()) {
    throw Error(fmt::format("{} {}: expected a JSON object (one row), got a JSON {}", path,
                            position, row.type_name()));
  }
  out.rows.push_back(std::move(row));
  out.origins.push_back({path, position});
}

RowFile parse_json_lines(const std::string& path, const std::string& text) {
  RowFile out;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    if (is_blank(line)) continue;
    Row row;
    try {
      row = parse_json<Row>(line);
    } catch (const nlohmann::json::exception& e) {
      throw Error(
          fmt::format("{} line {}: not valid JSON ({})", path, number, json_error_text(e.what())));
    }
    add_row(out, std::move(row), path, fmt::format("line {}", number));
  }
  return out;
}

RowFile parse_json_array(const std::string& path, const std::string& text) {
  Row array;
  try {
    array = parse_json<Row>(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not valid JSON ({})", path, json_error_text(e.what())));
  }
  if (!array.is_array()) throw Error(fmt::format("{}: expected a JSON array of rows", path));
  RowFile out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    add_row(out, std::move(array[i]), path, fmt::format("row {}", i));
  }
  return out;
}

RowFile read_parquet_rows(const std::string& path) {
  RowFile out;
  out.rows = read_parquet(path);
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    out.origins.push_back({path, fmt::format("row {}", i)});
  }
  return out;
}

}  // namespace

RowFile read_rows(const std::string& path) {
  require_regular_file(path, "data file");
  RowFile out;
  if (path.ends_with(".parquet")) {
    out = read_parquet_rows(path);
  } else if (path.ends_with(".jsonl")) {
    out = parse_json_lines(path, read_text(path));
  } else if (path.ends_with(".json")) {
    const std::string text = read_text(path);
    const auto first = text.find_first_not_of(" \t\r\n");
    out = first != std::string::npos && text[first] == '[' ? parse_json_array(path, text)
                                                           : parse_json_lines(path, text);
  } else {
    throw Error(
        fmt::format("{}: unknown data file type (expected .jsonl, .json or .parquet)", path));
  }
  if (out.rows.empty()) throw Error(fmt::format("{}: no rows (the file is empty)", path));
  return out;
}

std::vector<std::string> expand_data_files(const std::string& entry) {
  std::error_code error;
  if (entry.find_first_of("*?[") == std::string::npos || std::filesystem::exists(entry, error)) {
    return {entry};
  }
  glob_t matches{};
  const int status = glob(entry.c_str(), 0, nullptr, &matches);
  std::vector<std::string> out;
  if (status == 0) out.assign(matches.gl_pathv, matches.gl_pathv + matches.gl_pathc);
  globfree(&matches);
  if (out.empty()) throw Error(fmt::format("{}: no data file matches this pattern", entry));
  return out;
}

RowFile read_rows(const std::vector<std::string>& paths) {
  RowFile all;
  for (const auto& entry : paths) {
    for (const auto& path : expand_data_files(entry)) {
      RowFile one = read_rows(path);
      for (std::size_t i = 0; i < one.rows.size(); ++i) {
        all.rows.push_back(std::move(one.rows[i]));
        all.origins.push_back(std::move(one.origins[i]));
      }
    }
  }
  return all;
}

void write_jsonl(const std::string& path, const std::vector<Row>& rows) {
  write_atomically(path, [&](const std::filesystem::path& temporary) {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) throw Error(fmt::format("{}: cannot write", path));
    for (const auto& row : rows) out << row.dump() << '\n';
    if (!out) throw Error(fmt::format("{}: write failed", path));
  });
}

std::vector<std::string> write_split(const std::string& output_dir, const std::string& split,
                                     const std::vector<Row>& rows, bool parquet) {
  const std::filesystem::path dir(output_dir);
  const std::string jsonl = (dir / (split + ".jsonl")).string();
  write_jsonl(jsonl, rows);
  if (!parquet) return {jsonl};
  const std::string file = (dir / (split + ".parquet")).string();
  write_parquet_from_jsonl(jsonl, file);
  return {jsonl, file};
}

}  // namespace verlpp::data
