// Reading verl-schema files: JSONL/JSON, Parquet (pyarrow fixture, in builds with Parquet: Arrow or
// DuckDB), and the errors a new user meets.
#include "verlpp/data/row_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "temp_dir.h"
#include "verlpp/core/error.h"
#include "verlpp/data/parquet_io.h"

namespace verlpp::data {
namespace {

using testing::fixture;
using testing::TempDir;

std::string error_of(const std::string& path) {
  try {
    read_rows(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RowReader, ReadsTheVerlSchemaFixture) {
  const RowFile file = read_rows(fixture("gsm8k_verl/train.jsonl"));
  ASSERT_EQ(file.rows.size(), 8u);
  const Row& first = file.rows[0];
  EXPECT_EQ(first["data_source"], "openai/gsm8k");
  EXPECT_EQ(first["reward_model"]["ground_truth"], "72");
  EXPECT_EQ(first["extra_info"]["index"], 0);
  EXPECT_EQ(file.origins[7].describe(), fixture("gsm8k_verl/train.jsonl") + " line 8");
  // Column order is the file's.
  std::vector<std::string> keys;
  for (const auto& [key, value] : first.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"data_source", "prompt", "ability", "reward_model",
                                            "extra_info"}));
}

TEST(RowReader, ConcatenatesFilesInOrder) {
  const RowFile file =
      read_rows({fixture("gsm8k_verl/train.jsonl"), fixture("gsm8k_verl/test.jsonl")});
  ASSERT_EQ(file.rows.size(), 11u);
  EXPECT_EQ(file.rows[8]["extra_info"]["split"], "test");
  EXPECT_EQ(file.rows[8]["reward_model"]["ground_truth"], "18");
}

// verl hands each data.train_files entry to the datasets loader, which expands glob patterns
// (a break-test's 'ds_*.jsonl' was "no such file").
TEST(RowReader, PatternsReadTheMatchingFilesInSortedOrder) {
  TempDir dir;
  dir.file("part_2.jsonl", "{\"x\": 2}\n");
  dir.file("part_1.jsonl", "{\"x\": 1}\n{\"x\": 11}\n");
  dir.file("other.jsonl", "{\"x\": 9}\n");
  const std::string pattern = dir.path("part_*.jsonl");
  const RowFile file = read_rows(std::vector<std::string>{pattern});
  ASSERT_EQ(file.rows.size(), 3u);
  EXPECT_EQ(file.rows[0]["x"], 1);
  EXPECT_EQ(file.rows[2]["x"], 2);
  EXPECT_EQ(file.origins[2].describe(), dir.path("part_2.jsonl") + " line 1");
  const std::string none = dir.path("nothing_*.jsonl");
  try {
    read_rows(std::vector<std::string>{none});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), none + ": no data file matches this pattern");
  }
}

TEST(RowReader, JsonArrayAndJsonLinesInDotJson) {
  TempDir dir;
  EXPECT_EQ(read_rows(dir.file("a.json", "[{\"x\": 1}, {\"x\": 2}]")).rows[1]["x"], 2);
  EXPECT_EQ(read_rows(dir.file("b.json", "{\"x\": 1}\n\n{\"x\": 3}\n")).rows[1]["x"], 3);
}

TEST(RowReader, MalformedLineNamesFileAndLine) {
  TempDir dir;
  const std::string path = dir.file("bad.jsonl", "{\"x\": 1}\n{\"x\": 2,}\n");
  const std::string message = error_of(path);
  EXPECT_NE(message.find(path + " line 2: not valid JSON"), std::string::npos) << message;
}

// Values a JSON parser takes but later use cannot: a row nested 200,000 deep (copying or printing
// it recursed off the stack) and a number beyond a double ("internal error" before).
TEST(RowReader, DeepRowsAndHugeNumbersNameFileAndLine) {
  TempDir dir;
  const std::string deep =
      dir.file("deep.jsonl", "{\"x\": 1}\n{\"x\": " + std::string(200000, '[') +
                                 std::string(200000, ']') + "}\n");
  const std::string message = error_of(deep);
  EXPECT_NE(message.find(deep + " line 2: not valid JSON"), std::string::npos) << message;
  EXPECT_NE(message.find("nested more than 1000 levels deep"), std::string::npos) << message;
  const std::string huge = dir.file("huge.jsonl", "{\"ground_truth\": 1e400}\n");
  EXPECT_NE(error_of(huge).find(huge + " line 1: not valid JSON"), std::string::npos)
      << error_of(huge);
  const std::string array = dir.file("deep.json", std::string(5000, '[') + std::string(5000, ']'));
  EXPECT_NE(error_of(array).find("nested more than 1000 levels deep"), std::string::npos);
}

TEST(RowReader, RowThatIsNotAnObject) {
  TempDir dir;
  const std::string path = dir.file("list.jsonl", "{\"x\": 1}\n[1, 2]\n");
  EXPECT_NE(
      error_of(path).find(path + " line 2: expected a JSON object (one row), got a JSON array"),
      std::string::npos);
}

TEST(RowReader, EmptyFile) {
  TempDir dir;
  const std::string path = dir.file("empty.jsonl", "\n  \n");
  EXPECT_EQ(error_of(path), path + ": no rows (the file is empty)");
}

TEST(RowReader, MissingFileAndUnknownType) {
  EXPECT_EQ(error_of("/nonexistent/train.jsonl"),
            "/nonexistent/train.jsonl: data file: no such file");
  TempDir dir;
  const std::string csv = dir.file("t.csv", "a,b\n");
  EXPECT_NE(error_of(csv).find("unknown data file type"), std::string::npos);
}

// A break-test found a folder named x.jsonl read as "empty" and a link to /dev/zero read forever.
TEST(RowReader, FoldersAndDevicesAreNotDataFiles) {
  TempDir dir;
  const std::string folder = dir.file("x.jsonl", "");
  std::filesystem::remove(folder);
  std::filesystem::create_directory(folder);
  EXPECT_EQ(error_of(folder), folder + ": data file is a folder, not a file");
  const std::string zero = dir.file("zero.jsonl", "");
  std::filesystem::remove(zero);
  std::filesystem::create_symlink("/dev/zero", zero);
  EXPECT_EQ(error_of(zero), zero + ": data file is not a regular file (a device, pipe or socket)");
}

TEST(RowReader, ParquetWithoutSupportSaysHowToGetIt) {
  if (parquet_supported()) GTEST_SKIP() << "this build reads Parquet";
  const std::string message = error_of(fixture("gsm8k_verl/train.parquet"));
  EXPECT_NE(message.find("built without Parquet support"), std::string::npos) << message;
  EXPECT_NE(message.find("-DVERLPP_WITH_PARQUET=ON"), std::string::npos) << message;
}

// The Parquet file and its JSONL twin were both written by tools/make_parquet_fixture.py (pyarrow).
TEST(RowReader, ParquetFromPyarrowReadsLikeItsJsonlTwin) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  for (const std::string split : {"train", "test"}) {
    const RowFile parquet = read_rows(fixture("gsm8k_verl/" + split + ".parquet"));
    const RowFile jsonl = read_rows(fixture("gsm8k_verl/" + split + ".jsonl"));
    ASSERT_EQ(parquet.rows.size(), jsonl.rows.size());
    for (std::size_t i = 0; i < jsonl.rows.size(); ++i) {
      EXPECT_EQ(parquet.rows[i], jsonl.rows[i]) << split << " row " << i;
    }
  }
}

TEST(RowReader, ParquetRoundTrip) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  TempDir dir;
  const std::string out = dir.path("train.parquet");
  write_parquet_from_jsonl(fixture("gsm8k_verl/train.jsonl"), out);
  EXPECT_EQ(read_rows(out).rows, read_rows(fixture("gsm8k_verl/train.jsonl")).rows);
  const std::string junk = dir.file("junk.parquet", "not parquet");
  EXPECT_NE(error_of(junk).find(junk), std::string::npos);
}

// The writer infers one type per column as Arrow's JSON reader does: integers and floats widen to
// double, objects take the union of their fields (absent ones read back as null), strings that
// look like dates or UUIDs stay strings, a column that is null in every row stays null.
TEST(RowReader, ParquetWriterInfersOneTypePerColumn) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  TempDir dir;
  const std::string jsonl =
      dir.file("in.jsonl",
               "{\"n\": 1, \"s\": \"2024-01-01\", \"o\": {\"a\": 1}, "
               "\"l\": [], \"z\": null, \"e\": {}}\n"
               "{\"n\": 2.5, \"s\": \"3c9d1a8e-8d3e-4a3b-9b1d-3f8f3e7b7a11\", "
               "\"o\": {\"b\": \"x\"}, \"l\": [[1, 2], []], \"z\": null, \"e\": {}}\n");
  const std::string out = dir.path("out.parquet");
  write_parquet_from_jsonl(jsonl, out);
  const std::vector<Row> rows = read_parquet(out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], Row::parse(R"({"n": 1.0, "s": "2024-01-01", "o": {"a": 1, "b": null},
                                    "l": [], "z": null, "e": {}})"));
  EXPECT_EQ(rows[1], Row::parse(R"({"n": 2.5, "s": "3c9d1a8e-8d3e-4a3b-9b1d-3f8f3e7b7a11",
                                    "o": {"a": null, "b": "x"}, "l": [[1, 2], []], "z": null,
                                    "e": {}})"));
  EXPECT_TRUE(rows[0]["n"].is_number_float());
}

TEST(RowReader, ParquetWriterRefusesAColumnOfTwoTypes) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  TempDir dir;
  const std::string jsonl =
      dir.file("in.jsonl", "{\"x\": {\"y\": 1}}\n{\"x\": {\"y\": 2}}\n{\"x\": {\"y\": \"3\"}}\n");
  const std::string out = dir.path("out.parquet");
  std::string message = "no error";
  try {
    write_parquet_from_jsonl(jsonl, out);
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(jsonl + " line 3"), std::string::npos) << message;
  EXPECT_NE(message.find("x.y"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A failed write leaves an existing file as it was.
TEST(RowReader, ParquetWriterKeepsTheOldFileWhenItFails) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  TempDir dir;
  const std::string out = dir.path("train.parquet");
  write_parquet_from_jsonl(fixture("gsm8k_verl/train.jsonl"), out);
  const std::string bad = dir.file("bad.jsonl", "{\"x\": 1}\n{\"x\": \"one\"}\n");
  EXPECT_THROW(write_parquet_from_jsonl(bad, out), Error);
  EXPECT_EQ(read_rows(out).rows, read_rows(fixture("gsm8k_verl/train.jsonl")).rows);
}

TEST(RowReader, ParquetMissingFileIsNamed) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  EXPECT_NE(error_of("/nonexistent/train.parquet").find("/nonexistent/train.parquet"),
            std::string::npos);
}

std::string hex_of(const std::string& bytes) {
  std::string out;
  for (const unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

// tools/make_parquet_types_fixture.py wrote types.parquet with pyarrow and types.json from the
// same Python values: every type a verl or Hugging Face file may hold reads back as those values.
TEST(RowReader, ParquetTypesFromPyarrow) {
  if (!parquet_supported()) GTEST_SKIP() << "built without Parquet support";
  const std::vector<Row> rows = read_parquet(fixture("parquet_types/types.parquet"));
  std::ifstream in(fixture("parquet_types/types.json"));
  const Row want = Row::parse(in);
  ASSERT_EQ(rows.size(), want.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (const auto& [key, value] : want[r].items()) {
      if (key == "blob_hex") {
        EXPECT_EQ(rows[r]["blob"].is_null() ? Row() : Row(hex_of(rows[r]["blob"])), value) << r;
      } else if (key == "dec" && !value.is_null()) {
        const Row& got = rows[r][key];
        EXPECT_EQ(got.is_string() ? std::stod(got.get<std::string>()) : got.get<double>(),
                  std::stod(value.get<std::string>()))
            << r;
      } else {
        EXPECT_EQ(rows[r][key], value) << "row " << r << " column " << key;
      }
    }
  }
}

}  // namespace
}  // namespace verlpp::data
