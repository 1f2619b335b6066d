// Parquet entry points of a build with neither Apache Arrow nor DuckDB.
#include "verlpp/core/error.h"
#include "verlpp/data/parquet_io.h"

namespace verlpp::data {
namespace {

[[noreturn]] void unsupported(const std::string& path) {
  throw Error(path +
              ": this verlpp was built without Parquet support. Convert the file to JSONL (e.g. "
              "python3 -c \"import pandas as p;p.read_parquet('x.parquet').to_json('x.jsonl',"
              "orient='records',lines=True,force_ascii=False)\"), or rebuild with Parquet: run "
              "scripts/setup (installs DuckDB) or install Apache Arrow C++ (an Arrow/Parquet CMake "
              "package, or `pip install pyarrow`), then -DVERLPP_WITH_PARQUET=ON");
}

}  // namespace

bool parquet_supported() { return false; }

std::vector<Row> read_parquet(const std::string& path) { unsupported(path); }

void write_parquet_from_jsonl(const std::string& /*jsonl_path*/, const std::string& parquet_path) {
  unsupported(parquet_path);
}

}  // namespace verlpp::data
