// core/json_file.h: a user-named JSON file read, or one line naming the file and what is wrong
// (expected messages written out by hand).
#include "verlpp/core/json_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp {
namespace {

namespace fs = std::filesystem;

class JsonFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("verlpp_json_file_test_" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  static std::string error_of(const std::string& path) {
    try {
      read_json_file(path, "model config");
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(JsonFile, ReadsObjectsAndKeepsKeyOrderWhenAsked) {
  const std::string path = write("config.json", R"({"b": 1, "a": [true, null]})");
  const nlohmann::json j = read_json_file(path, "model config");
  EXPECT_EQ(j["b"], 1);
  EXPECT_TRUE(j["a"][1].is_null());
  const nlohmann::ordered_json ordered = read_ordered_json_file(path, "model config");
  EXPECT_EQ(ordered.begin().key(), "b");
}

TEST_F(JsonFile, EachFailureIsOneLineNamingTheFile) {
  const std::string missing = (dir_ / "missing.json").string();
  EXPECT_EQ(error_of(missing), missing + ": model config: no such file");
  EXPECT_EQ(error_of(dir_.string()), dir_.string() + ": model config is a folder, not a file");
  EXPECT_EQ(error_of("/dev/null"),
            "/dev/null: model config is not a regular file (a device, pipe or socket)");
  const std::string truncated = write("truncated.json", R"({"a": )");
  const std::string message = error_of(truncated);
  EXPECT_EQ(message.rfind(truncated + ": not valid JSON (", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  const std::string deep = write("deep.json", std::string(5000, '['));
  EXPECT_NE(error_of(deep).find("nested more than 1000 levels"), std::string::npos);
}

}  // namespace
}  // namespace verlpp
