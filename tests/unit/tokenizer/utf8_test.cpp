// UTF-8 helpers and Python value formatting, against hand-worked values (Rust's
// String::from_utf8_lossy for the replacement rules, CPython's repr for floats and strings).
#include "verlpp/core/utf8.h"

#include <gtest/gtest.h>

#include "verlpp/tokenizer/byte_level.h"
#include "verlpp/tokenizer/jinja/value.h"

namespace verlpp::tokenizer {
namespace {

TEST(Utf8, LossyReplacesMaximalInvalidSubsequences) {
  EXPECT_EQ(utf8::lossy("ok \xF0\x9F\x98\x80"), "ok \xF0\x9F\x98\x80");
  EXPECT_EQ(utf8::lossy("\xE2\x82"
                        "A"),
            "\uFFFD"
            "A");  // truncated 3-byte sequence: one U+FFFD
  EXPECT_EQ(utf8::lossy("\xF0\x9F\x98"), "\uFFFD");
  EXPECT_EQ(utf8::lossy("\xC0\xAF"), "\uFFFD\uFFFD");            // overlong lead, then a stray byte
  EXPECT_EQ(utf8::lossy("\xED\xA0\x80"), "\uFFFD\uFFFD\uFFFD");  // a surrogate: 3 replacements
  EXPECT_EQ(utf8::lossy("\xF4\x90\x80\x80"), "\uFFFD\uFFFD\uFFFD\uFFFD");  // above U+10FFFF
}

TEST(Utf8, ExcerptKeepsShortTextAndCutsLongTextAtACharacter) {
  EXPECT_EQ(utf8::excerpt("short"), "short");
  EXPECT_EQ(utf8::excerpt(std::string(80, 'x')), std::string(80, 'x'));
  EXPECT_EQ(utf8::excerpt(std::string(81, 'x')), std::string(80, 'x') + "… (81 bytes)");
  // Three 2-byte characters, two kept: no split sequence; the byte count is the original's.
  EXPECT_EQ(utf8::excerpt("ééé", 2), "éé… (6 bytes)");
  // An invalid byte counts as one character, shown as U+FFFD.
  EXPECT_EQ(utf8::excerpt(std::string("a\x80") + "bc", 2), "a\uFFFD… (4 bytes)");
}

TEST(Utf8, ValidationAndStreamingBoundaries) {
  EXPECT_EQ(utf8::first_invalid("h\u00e9llo"), std::nullopt);
  EXPECT_EQ(utf8::first_invalid("ab\x80"), 2u);
  EXPECT_EQ(utf8::complete_prefix("a\xF0\x9F"), 1u);
  EXPECT_EQ(utf8::complete_prefix("a\xF0\x9F\x98\x80"), 5u);
  EXPECT_EQ(utf8::complete_prefix("a\x80"), 2u);  // invalid, not incomplete: emit it (as U+FFFD)
  EXPECT_EQ(utf8::length("h\u00e9\U0001F600"), 3u);
}

TEST(ByteLevel, Gpt2Alphabet) {
  const auto& table = byte_level::byte_to_char();
  EXPECT_EQ(table[' '], U'\u0120');   // 'Ġ'
  EXPECT_EQ(table['\n'], U'\u010A');  // 'Ċ'
  EXPECT_EQ(table['A'], U'A');
  EXPECT_EQ(table[0xAD], U'\u0143');  // the soft hyphen is not printable: 'Ń'
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  EXPECT_EQ(byte_level::decode(byte_level::encode(all)), all);
  EXPECT_EQ(byte_level::decode("<|im_end|>"), "<|im_end|>");
  EXPECT_EQ(byte_level::decode("\u4f60"), std::nullopt);  // not in the alphabet
}

TEST(PythonRepr, FloatsLikeCPython) {
  EXPECT_EQ(jinja::python_float_repr(0.1), "0.1");
  EXPECT_EQ(jinja::python_float_repr(2.0), "2.0");
  EXPECT_EQ(jinja::python_float_repr(1e16), "1e+16");
  EXPECT_EQ(jinja::python_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(jinja::python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(jinja::python_float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(jinja::python_float_repr(-123.456), "-123.456");
  EXPECT_EQ(jinja::python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(jinja::python_string_repr("it's"), "\"it's\"");
  EXPECT_EQ(jinja::python_string_repr("a\n'\"b"), "'a\\n\\'\"b'");
}

}  // namespace
}  // namespace verlpp::tokenizer
