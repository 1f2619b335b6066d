// core/json_file.h: a user-named JSON file read, or one line naming the file and what is wrong
// (expected messages written out by hand).
#include "verlpp/core/json_file.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error_of.h"
#include "common/temp_dir.h"
#include "verlpp/core/error.h"

namespace verlpp {
namespace {

std::string error_of(const std::string& path) {
  return testing::error_of([&] { read_json_file(path, "model config"); });
}

TEST(JsonFile, ReadsObjectsAndKeepsKeyOrderWhenAsked) {
  const testing::TempDir dir;
  const std::string path = dir.file("config.json", R"({"b": 1, "a": [true, null]})");
  const nlohmann::json j = read_json_file(path, "model config");
  EXPECT_EQ(j["b"], 1);
  EXPECT_TRUE(j["a"][1].is_null());
  const nlohmann::ordered_json ordered = read_ordered_json_file(path, "model config");
  EXPECT_EQ(ordered.begin().key(), "b");
}

TEST(JsonFile, EachFailureIsOneLineNamingTheFile) {
  const testing::TempDir dir;
  const std::string missing = dir.path("missing.json");
  EXPECT_EQ(error_of(missing), missing + ": model config: no such file");
  EXPECT_EQ(error_of(dir.path()), dir.path() + ": model config is a folder, not a file");
  EXPECT_EQ(error_of("/dev/null"),
            "/dev/null: model config is not a regular file (a device, pipe or socket)");
  const std::string truncated = dir.file("truncated.json", R"({"a": )");
  const std::string message = error_of(truncated);
  EXPECT_EQ(message.rfind(truncated + ": not valid JSON (", 0), 0u) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  // A bad byte late in a long string (a chat template): the parser's echo of the text before it
  // is cut to its last 40 bytes, the byte written out.
  const std::string late_byte =
      dir.file("late.json", "{\"chat_template\": \"" + std::string(5000, 'x') + "\xff\"}");
  const std::string short_message = error_of(late_byte);
  EXPECT_LT(short_message.size(), 400u) << short_message;
  EXPECT_NE(short_message.find("last read: '..." + std::string(39, 'x') + "\\xff'"),
            std::string::npos)
      << short_message;
  const std::string deep = dir.file("deep.json", std::string(5000, '['));
  EXPECT_NE(error_of(deep).find("nested more than 1000 levels"), std::string::npos);
}

}  // namespace
}  // namespace verlpp
