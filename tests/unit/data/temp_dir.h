// The data tests' temporary folders (common/temp_dir.h) and fixture files.
#pragma once

#include <string>

#include "common/temp_dir.h"

namespace verlpp::data::testing {

using verlpp::testing::TempDir;

inline std::string fixture(const std::string& relative) {
  return std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/data/" + relative;
}

}  // namespace verlpp::data::testing
