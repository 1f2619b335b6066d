// Token-id parity with HF tokenizers on the real Qwen3 tokenizer: every GSM8K test question and
// answer plus hand-picked hard strings (tests/fixtures/tokenizers/qwen3_parity.jsonl, made by
// tools/make_tokenizer_fixture.py). Also decode parity and decode(encode(x)) == x.
#include <gtest/gtest.h>

#include "fixtures.h"

namespace verlpp::tokenizer::testing {
namespace {

std::string show(const std::string& text) { return OrderedJson(text).dump(); }

TEST(TokenizerParity, EncodeMatchesHuggingFaceTokenizers) {
  const auto rows = read_jsonl(fixture_dir() / "qwen3_parity.jsonl");
  ASSERT_GE(rows.size(), 2000u) << "fixture missing or too small";
  std::size_t mismatches = 0;
  for (const auto& row : rows) {
    const auto text = row["text"].get<std::string>();
    const auto expected = row["ids"].get<std::vector<std::int32_t>>();
    const auto ids = qwen3().encode(text);
    if (ids != expected && ++mismatches <= 5) {
      ADD_FAILURE() << "encode(" << show(text) << ") = " << nlohmann::json(ids).dump()
                    << ", HF: " << nlohmann::json(expected).dump();
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << rows.size() << " strings";
}

TEST(TokenizerParity, DecodeMatchesHuggingFaceTokenizers) {
  const auto rows = read_jsonl(fixture_dir() / "qwen3_parity.jsonl");
  ASSERT_GE(rows.size(), 2000u);
  std::size_t round_trips = 0;
  for (const auto& row : rows) {
    const auto text = row["text"].get<std::string>();
    const auto ids = row["ids"].get<std::vector<std::int32_t>>();
    const auto decoded = row.value("decoded", text);
    const auto skipped = row.value("decoded_skip_special", decoded);
    EXPECT_EQ(qwen3().decode(ids), decoded) << show(text);
    EXPECT_EQ(qwen3().decode(ids, true), skipped) << show(text);
    round_trips += decoded == text;
  }
  // HF's decode(encode(x)) == x for every string of the fixture (none needs repair).
  EXPECT_EQ(round_trips, rows.size());
}

TEST(TokenizerParity, BatchEncodeEqualsEncode) {
  const auto rows = read_jsonl(fixture_dir() / "qwen3_parity.jsonl");
  ASSERT_FALSE(rows.empty());
  std::vector<std::string> texts;
  for (const auto& row : rows) texts.push_back(row["text"].get<std::string>());
  const auto batch = qwen3().encode_batch(texts, 4);
  ASSERT_EQ(batch.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(batch[i], rows[i]["ids"].get<std::vector<std::int32_t>>()) << show(texts[i]);
  }
}

TEST(TokenizerParity, StreamDecodeConcatenatesToDecode) {
  const auto rows = read_jsonl(fixture_dir() / "qwen3_parity.jsonl");
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    const auto ids = row["ids"].get<std::vector<std::int32_t>>();
    StreamDecoder stream(qwen3());
    std::string text;
    for (const auto id : ids) {
      const std::string piece = stream.push(id);
      // Every piece is complete UTF-8: no replacement character appears for valid text.
      EXPECT_EQ(piece.find("\xEF\xBF\xBD"), std::string::npos)
          << show(row["text"].get<std::string>());
      text += piece;
    }
    text += stream.finish();
    EXPECT_EQ(text, qwen3().decode(ids));
  }
}

}  // namespace
}  // namespace verlpp::tokenizer::testing
