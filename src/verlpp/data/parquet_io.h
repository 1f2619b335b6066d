// Parquet I/O (optional at build time: CMake option VERLPP_WITH_PARQUET, AUTO by default) through
// Apache Arrow C++ where found (an Arrow CMake package or an installed pyarrow: parquet_arrow.cpp),
// else through DuckDB's C library that scripts/setup installs (parquet_duckdb.cpp); both give the
// rows and errors below.
#pragma once

#include <string>
#include <vector>

#include "verlpp/data/row.h"

namespace verlpp::data {

// Whether this build reads and writes Parquet.
bool parquet_supported();

// Reads every row group of a Parquet file into rows (row and column order kept). Types map to
// JSON: strings and binary (its bytes, as a string), integers, floats, booleans, nulls, structs ->
// objects, lists and fixed-size lists -> arrays, maps -> objects (non-string keys as their JSON
// text); others (dates, timestamps, decimals) -> their text form (Arrow) or their JSON form
// (DuckDB's to_json). Throws verlpp::Error naming the file on a read
// failure, and, in a build without Parquet, an error that says how to build with it.
std::vector<Row> read_parquet(const std::string& path);

// Writes the rows of JSON Lines file `jsonl_path` to Parquet file `parquet_path`, inferring the
// schema from the JSON as Arrow's JSON reader does (strings, int64, double where integers and
// floats mix, bool, structs with the union of the fields seen, lists; strings stay strings). Throws
// verlpp::Error on failure (e.g. a column holding both strings and numbers) or without Parquet
// support.
void write_parquet_from_jsonl(const std::string& jsonl_path, const std::string& parquet_path);

}  // namespace verlpp::data
