#include "verlpp/core/json_file.h"

#include <fstream>

#include "verlpp/core/error.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/json_parse.h"

namespace verlpp {

namespace {

template <typename Json>
Json read(const std::string& path, const std::string& what) {
  require_regular_file(path, what);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open " + what);
  try {
    return parse_json<Json>(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not valid JSON (" + json_error_text(e.what()) + ")");
  }
}

}  // namespace

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  return read<nlohmann::json>(path, what);
}

nlohmann::ordered_json read_ordered_json_file(const std::string& path, const std::string& what) {
  return read<nlohmann::ordered_json>(path, what);
}

}  // namespace verlpp
