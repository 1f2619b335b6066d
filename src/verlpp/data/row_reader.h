// Reading dataset files (verl's data.train_files / data.val_files) into rows.
#pragma once

#include <string>
#include <vector>

#include "verlpp/data/row.h"

namespace verlpp::data {

struct RowFile {
  std::vector<Row> rows;
  std::vector<RowOrigin> origins;  // one per row
};

// Reads one file by extension: .jsonl (one JSON object per line; blank lines skipped), .json (a
// JSON array of objects, or JSON Lines as Hugging Face's json loader accepts) and .parquet (through
// Apache Arrow where this build has it, see parquet_io.h).
// Throws verlpp::Error naming the file (and line) for: a missing/unreadable file, a line that is
// not valid JSON or not an object, an unknown extension, a file with no rows, or a .parquet file
// in a build without Parquet support.
RowFile read_rows(const std::string& path);

// The files an entry of data.train_files / val_files names: the entry itself, or, when it holds
// a glob pattern (* ? [...]) and no file has that literal name, the files matching it in sorted
// order, as the Hugging Face datasets loader behind verl expands data_files patterns. Throws
// verlpp::Error naming the pattern when nothing matches.
std::vector<std::string> expand_data_files(const std::string& entry);

// Reads several files (each entry expanded by expand_data_files) and concatenates their rows in
// order (verl concatenates data.train_files).
RowFile read_rows(const std::vector<std::string>& paths);

// Writes rows as JSON Lines (UTF-8, one compact object per line, column order kept). Throws
// verlpp::Error when the file cannot be written.
void write_jsonl(const std::string& path, const std::vector<Row>& rows);

// A prepared split: OUTPUT_DIR/SPLIT.jsonl, and OUTPUT_DIR/SPLIT.parquet when `parquet` (a build
// with Parquet support). Returns the files written; throws verlpp::Error as write_jsonl and
// write_parquet_from_jsonl.
std::vector<std::string> write_split(const std::string& output_dir, const std::string& split,
                                     const std::vector<Row>& rows, bool parquet);

}  // namespace verlpp::data
