// Parquet I/O through Apache Arrow C++ (optional at build time: CMake option VERLPP_WITH_PARQUET,
// AUTO by default; it finds Arrow/Parquet from an Arrow CMake package or from an installed
// pyarrow).
#pragma once

#include <string>
#include <vector>

#include "verlpp/data/row.h"

namespace verlpp::data {

// Whether this build reads and writes Parquet.
bool parquet_supported();

// Reads every row group of a Parquet file into rows (column order kept). Arrow types map to JSON:
// strings, integers, floats, booleans, nulls, structs -> objects, lists -> arrays, maps with string
// keys -> objects, others -> their Arrow text form. Throws verlpp::Error naming the file on a read
// failure, and, in a build without Parquet, an error that says how to build with it.
std::vector<Row> read_parquet(const std::string& path);

// Writes the rows of JSON Lines file `jsonl_path` to Parquet file `parquet_path`, inferring the
// Arrow schema from the JSON as Arrow's JSON reader does (strings, int64, double, bool, structs,
// lists). Throws verlpp::Error on failure or without Parquet support.
void write_parquet_from_jsonl(const std::string& jsonl_path, const std::string& parquet_path);

}  // namespace verlpp::data
