// The tokenizer on a small hand-made tokenizer.json whose results are worked out by hand: BPE
// merge order (lowest rank first, leftmost first), added-token flags (lstrip, rstrip,
// single_word, normalized), NFC, decode with and without special tokens, streaming decode, and
// the errors for bad files, bad ids and bad UTF-8. Plus the real Qwen3 directory's config.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error_of.h"
#include "fixtures.h"
#include "verlpp/core/error.h"
#include "verlpp/core/utf8.h"
#include "verlpp/tokenizer/byte_level.h"

namespace verlpp::tokenizer::testing {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::int32_t>;

// Vocabulary: byte b is token id b (its byte-level character); "ab"=256, "abc"=257, "bc"=258.
// Merges by rank: a+b, ab+c, b+c. Added tokens: <L> (300, special, lstrip), <R> (301, rstrip),
// tok (302, single_word), "é" (303, normalized). NFC normaliser; words are " ?[a-z]+" or
// whitespace runs, anything else is a word by itself.
nlohmann::json tiny_tokenizer_json() {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) {
    std::string ch;
    utf8::append(ch, byte_level::byte_to_char()[b]);
    vocab[ch] = b;
  }
  vocab["ab"] = 256;
  vocab["abc"] = 257;
  vocab["bc"] = 258;
  const auto added = [](int id, const char* content, bool special, bool lstrip, bool rstrip,
                        bool single_word, bool normalized) {
    return nlohmann::json{{"id", id},
                          {"content", content},
                          {"special", special},
                          {"lstrip", lstrip},
                          {"rstrip", rstrip},
                          {"single_word", single_word},
                          {"normalized", normalized}};
  };
  return {{"version", "1.0"},
          {"added_tokens",
           {added(300, "<L>", true, true, false, false, false),
            added(301, "<R>", false, false, true, false, false),
            added(302, "tok", false, false, false, true, false),
            added(303, "\u00e9", false, false, false, false, true)}},
          {"normalizer", {{"type", "NFC"}}},
          {"pre_tokenizer",
           {{"type", "Sequence"},
            {"pretokenizers",
             {{{"type", "Split"},
               {"pattern", {{"Regex", " ?[a-z]+|\\s+"}}},
               {"behavior", "Isolated"},
               {"invert", false}},
              {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}}},
          {"decoder", {{"type", "ByteLevel"}}},
          {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"a b", {"ab", "c"}, "b c"}}}}};
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("verlpp_tok_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
  }

 private:
  fs::path path_;
};

Tokenizer tiny() {
  TempDir dir;
  dir.write("tokenizer.json", tiny_tokenizer_json().dump());
  return Tokenizer::from_file(dir.path() / "tokenizer.json");
}

using verlpp::testing::error_of;

TEST(Tokenizer, MergesLowestRankFirst) {
  const Tokenizer t = tiny();
  EXPECT_EQ(t.encode("abc"), (Ids{257}));        // a+b (rank 0), then ab+c (rank 1)
  EXPECT_EQ(t.encode("bcab"), (Ids{258, 256}));  // a+b first at the right, then b+c
  EXPECT_EQ(t.encode("aaa"), (Ids{97, 97, 97}));
  EXPECT_EQ(t.encode("abc abc"), (Ids{257, 32, 257}));  // " abc": 'Ġ' has no merge with a
  EXPECT_EQ(t.encode(""), Ids{});
}

TEST(Tokenizer, AddedTokenFlags) {
  const Tokenizer t = tiny();
  EXPECT_EQ(t.encode("ab <L>c"), (Ids{256, 300, 99}));     // lstrip swallows the space before
  EXPECT_EQ(t.encode("<R>  a"), (Ids{301, 97}));           // rstrip swallows the spaces after
  EXPECT_EQ(t.encode("xtok"), (Ids{120, 116, 111, 107}));  // single_word: inside a word
  EXPECT_EQ(t.encode("a tok."), (Ids{97, 32, 302, 46}));
  // normalized=true: matched after NFC, so the decomposed e + U+0301 finds it too.
  EXPECT_EQ(t.encode("cafe\u0301"), (Ids{99, 97, 102, 303}));
  EXPECT_EQ(t.encode("caf\u00e9"), (Ids{99, 97, 102, 303}));
}

TEST(Tokenizer, DecodeAndLookups) {
  const Tokenizer t = tiny();
  EXPECT_EQ(t.decode(Ids{257, 32, 257}), "abc abc");
  EXPECT_EQ(t.decode(Ids{300, 97}), "<L>a");
  EXPECT_EQ(t.decode(Ids{300, 97}, true), "a");
  EXPECT_EQ(t.decode(Ids{0xC3}), "\uFFFD");  // a lone lead byte
  EXPECT_EQ(t.vocab_size(), 304);
  EXPECT_EQ(t.token_to_id("abc"), 257);
  EXPECT_EQ(t.token_to_id("<R>"), 301);
  EXPECT_EQ(t.token_to_id("nope"), std::nullopt);
  EXPECT_EQ(t.id_to_token(32), "\u0120");
  EXPECT_EQ(t.id_to_token(280), std::nullopt);
  EXPECT_TRUE(t.is_special(300));
  EXPECT_FALSE(t.is_special(301));
}

TEST(Tokenizer, StreamDecoderHoldsIncompleteCharacters) {
  const Tokenizer t = tiny();
  StreamDecoder stream(t);
  EXPECT_EQ(stream.push(0xC3), "");
  EXPECT_EQ(stream.push(0xBC), "\u00fc");  // C3 BC
  EXPECT_EQ(stream.push(0xC3), "");
  EXPECT_EQ(stream.push(97), "\uFFFDa");  // C3 then 'a': invalid, replaced
  EXPECT_EQ(stream.push(0xF0), "");
  EXPECT_EQ(stream.push(0x9F), "");
  EXPECT_EQ(stream.finish(), "\uFFFD");  // F0 9F never completed
}

TEST(Tokenizer, BadInputGivesClearErrors) {
  const Tokenizer t = tiny();
  // Ids past the vocabulary (or gaps in it) are skipped as HF tokenizers skips them.
  EXPECT_FALSE(t.decode(Ids{97}).empty());
  EXPECT_EQ(t.decode(Ids{304, 97, 280}), t.decode(Ids{97}));
  EXPECT_EQ(error_of([&] { t.decode(Ids{-1}); }), "decode: token id -1 is negative");
  EXPECT_EQ(error_of([&] { t.encode("ab\xE2\x82"); }),
            "encode: invalid UTF-8 at byte 2 (byte value 226)");
  EXPECT_EQ(error_of([&] { t.encode("\xFF"); }),
            "encode: invalid UTF-8 at byte 0 (byte value 255)");
}

TEST(Tokenizer, BadFilesGiveClearErrors) {
  TempDir dir;
  const std::string file = (dir.path() / "tokenizer.json").string();
  EXPECT_EQ(error_of([&] { Tokenizer::from_directory(dir.path() / "missing"); }),
            (dir.path() / "missing").string() + ": tokenizer directory does not exist");
  EXPECT_EQ(error_of([&] { Tokenizer::from_directory(dir.path()); }),
            file + ": tokenizer file: no such file");
  dir.write("tokenizer.json", "{\"model\": ");
  EXPECT_EQ(error_of([&] { Tokenizer::from_file(file); }).rfind(file + ": not valid JSON (", 0),
            0u);
  auto json = tiny_tokenizer_json();
  json["model"]["type"] = "WordPiece";
  dir.write("tokenizer.json", json.dump());
  EXPECT_EQ(error_of([&] { Tokenizer::from_file(file); }),
            file + ": model type 'WordPiece' is not supported (supported: BPE)");
  json = tiny_tokenizer_json();
  json["model"]["merges"].push_back("a zz");
  dir.write("tokenizer.json", json.dump());
  EXPECT_EQ(error_of([&] { Tokenizer::from_file(file); }),
            file + ": model.merges[3]: \"zz\" is not in the vocabulary");
  json = tiny_tokenizer_json();
  json["pre_tokenizer"] = {{"type", "Metaspace"}};
  dir.write("tokenizer.json", json.dump());
  EXPECT_EQ(error_of([&] { Tokenizer::from_file(file); }),
            file +
                ": pre_tokenizer type 'Metaspace' is not supported (supported: Split, ByteLevel, "
                "Sequence)");
  json = tiny_tokenizer_json();
  dir.write("tokenizer.json", json.dump());
  dir.write("tokenizer_config.json", R"({"eos_token": "<missing>"})");
  EXPECT_EQ(error_of([&] { Tokenizer::from_directory(dir.path()); }),
            (dir.path() / "tokenizer_config.json").string() +
                ": eos_token \"<missing>\" is not a token of tokenizer.json");
  dir.write("tokenizer_config.json", R"({"chat_template": "{% if %}"})");
  EXPECT_EQ(error_of([&] { Tokenizer::from_directory(dir.path()); }),
            "chat template '" + (dir.path() / "tokenizer_config.json").string() +
                "' line 1:7: unexpected '%}' in expression");
}

TEST(Tokenizer, ConfigSpecialTokensAndGenerationConfig) {
  TempDir dir;
  dir.write("tokenizer.json", tiny_tokenizer_json().dump());
  dir.write("tokenizer_config.json",
            R"({"bos_token": {"content": "<L>"}, "eos_token": "<R>", "pad_token": null,
                "chat_template": [{"name": "default", "template": "{{ eos_token }}"}]})");
  dir.write("generation_config.json", R"({"eos_token_id": [301, 302]})");
  const Tokenizer t = Tokenizer::from_directory(dir.path());
  EXPECT_EQ(t.special_tokens().bos_id, 300);
  EXPECT_EQ(t.special_tokens().eos_id, 301);
  EXPECT_EQ(t.special_tokens().pad_token, std::nullopt);
  EXPECT_EQ(t.special_tokens().eos_token_ids, (Ids{301, 302}));
  EXPECT_EQ(t.apply_chat_template(OrderedJson::array()), "<R>");
}

TEST(Tokenizer, Qwen3DirectoryConfig) {
  const Tokenizer& t = qwen3();
  EXPECT_EQ(t.vocab_size(), 151669);
  EXPECT_EQ(t.special_tokens().eos_token, "<|im_end|>");
  EXPECT_EQ(t.special_tokens().eos_id, 151645);
  EXPECT_EQ(t.special_tokens().pad_id, 151643);
  EXPECT_EQ(t.special_tokens().bos_token, std::nullopt);
  EXPECT_EQ(t.special_tokens().eos_token_ids, (Ids{151645}));
  EXPECT_EQ(t.special_tokens().additional_special_tokens.size(), 13u);
  EXPECT_EQ(t.token_to_id("<think>"), 151667);
  EXPECT_FALSE(t.is_special(151667));  // <think> is added but not special: kept by skip
  EXPECT_TRUE(t.is_special(151645));
  ASSERT_TRUE(t.chat_template().has_value());
}

}  // namespace
}  // namespace verlpp::tokenizer::testing
