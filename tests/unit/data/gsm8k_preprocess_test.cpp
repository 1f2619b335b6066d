// GSM8K preprocessing against rows made by tools/make_parquet_fixture.py, which follows verl's
// examples/data_preprocess/gsm8k.py in Python.
#include "verlpp/data/gsm8k_preprocess.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "temp_dir.h"
#include "verlpp/core/error.h"
#include "verlpp/data/row_reader.h"

namespace verlpp::data {
namespace {

using testing::fixture;
using testing::TempDir;

TEST(Gsm8kPreprocess, GroundTruthAfterMarker) {
  EXPECT_EQ(gsm8k_ground_truth("... = 72\n#### 72"), "72");
  EXPECT_EQ(gsm8k_ground_truth("#### 1,080"), "1080");
  EXPECT_EQ(gsm8k_ground_truth("#### -7"), "-7");
  EXPECT_EQ(gsm8k_ground_truth("#### 5\n#### 6"), "5");  // re.search: the first
  EXPECT_EQ(gsm8k_ground_truth("#### x\n#### 6"), "6");
  EXPECT_EQ(gsm8k_ground_truth("no marker 5"), std::nullopt);
}

TEST(Gsm8kPreprocess, MatchesVerlsPreprocessing) {
  TempDir dir;
  const auto written = preprocess_gsm8k(fixture("gsm8k_raw"), dir.path(), false);
  ASSERT_EQ(written.size(), 2u);
  for (const std::string split : {"train", "test"}) {
    const RowFile ours = read_rows(dir.path(split + ".jsonl"));
    const RowFile verl = read_rows(fixture("gsm8k_verl/" + split + ".jsonl"));
    ASSERT_EQ(ours.rows.size(), verl.rows.size());
    for (std::size_t i = 0; i < ours.rows.size(); ++i) {
      EXPECT_EQ(ours.rows[i], verl.rows[i]) << split << " row " << i;  // key order included
    }
  }
}

TEST(Gsm8kPreprocess, BadRawRowsNameFileAndLine) {
  TempDir dir;
  dir.file("train.jsonl", "{\"question\": \"q\", \"answer\": \"#### 1\"}\n{\"q\": \"x\"}\n");
  dir.file("test.jsonl", "{\"question\": \"q\", \"answer\": \"#### 1\"}\n");
  try {
    preprocess_gsm8k(dir.path(), dir.path("out"), false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path("train.jsonl") + " line 2"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("the row has: q"), std::string::npos) << e.what();
  }
  dir.file("train.jsonl", "{\"question\": \"q\", \"answer\": \"no final answer\"}\n");
  try {
    preprocess_gsm8k(dir.path(), dir.path("out"), false);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 1: GSM8K answer has no"), std::string::npos)
        << e.what();
  }
}

// A missing or bad test split writes nothing: a break-test found train.jsonl and train.parquet
// written before the missing test.jsonl stopped the conversion.
TEST(Gsm8kPreprocess, NothingIsWrittenUnlessBothSplitsConvert) {
  TempDir dir;
  dir.file("train.jsonl", "{\"question\": \"q\", \"answer\": \"#### 1\"}\n");
  EXPECT_THROW(preprocess_gsm8k(dir.path(), dir.path("out"), false), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.path("out/train.jsonl")));
  dir.file("test.jsonl", "{\"question\": \"q\"}\n");
  EXPECT_THROW(preprocess_gsm8k(dir.path(), dir.path("out"), false), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.path("out/train.jsonl")));
}

}  // namespace
}  // namespace verlpp::data
