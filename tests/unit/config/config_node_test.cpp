// Node typing, paths and YAML round trips. Expected values follow OmegaConf's YAML typing and
// Hydra's override grammar (../shared/reference/verl.md §1.2), as documented in node.h.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "verlpp/config/node.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"

namespace verlpp::config {
namespace {

TEST(PlainScalar, NullWordAndTildeAreNull) {
  EXPECT_TRUE(plain_scalar("null").is_null());
  EXPECT_TRUE(plain_scalar("~").is_null());
}

TEST(PlainScalar, ThreeQuestionMarksAreMissing) { EXPECT_TRUE(plain_scalar("???").is_missing()); }

TEST(PlainScalar, BooleansInAnyCase) {
  const Node yes = plain_scalar("True");
  ASSERT_EQ(yes.kind(), Node::Kind::boolean);
  EXPECT_TRUE(yes.as_bool());
  const Node no = plain_scalar("false");
  ASSERT_EQ(no.kind(), Node::Kind::boolean);
  EXPECT_FALSE(no.as_bool());
}

TEST(PlainScalar, ExponentWithoutDotIsReal) {
  const Node value = plain_scalar("1e-6");
  ASSERT_EQ(value.kind(), Node::Kind::real);
  EXPECT_DOUBLE_EQ(value.as_real(), 1e-6);
}

TEST(PlainScalar, RealPrintsLikePython) {
  // verl launch scripts write lr=1e-6; Python (and verl's printed config) shows it as 1e-06.
  EXPECT_EQ(to_flow(plain_scalar("1e-6")), "1e-06");
}

TEST(PlainScalar, UnderscoreSeparatedDigitsAreInteger) {
  const Node value = plain_scalar("1_000");
  ASSERT_EQ(value.kind(), Node::Kind::integer);
  EXPECT_EQ(value.as_int(), 1000);
}

TEST(PlainScalar, NegativeInteger) {
  const Node value = plain_scalar("-3");
  ASSERT_EQ(value.kind(), Node::Kind::integer);
  EXPECT_EQ(value.as_int(), -3);
}

TEST(PlainScalar, LeadingDotIsReal) {
  const Node value = plain_scalar(".5");
  ASSERT_EQ(value.kind(), Node::Kind::real);
  EXPECT_DOUBLE_EQ(value.as_real(), 0.5);
}

TEST(PlainScalar, InfIsPositiveInfinity) {
  const Node value = plain_scalar("inf");
  ASSERT_EQ(value.kind(), Node::Kind::real);
  EXPECT_TRUE(std::isinf(value.as_real()));
  EXPECT_GT(value.as_real(), 0);
}

TEST(PlainScalar, YamlDotInfIsNegativeInfinityWithSign) {
  const Node value = plain_scalar("-.inf");
  ASSERT_EQ(value.kind(), Node::Kind::real);
  EXPECT_TRUE(std::isinf(value.as_real()));
  EXPECT_LT(value.as_real(), 0);
}

TEST(PlainScalar, VersionStringStaysString) {
  const Node value = plain_scalar("2.4.1");
  ASSERT_EQ(value.kind(), Node::Kind::string);
  EXPECT_EQ(value.as_string(), "2.4.1");
}

TEST(PlainScalar, WordStaysString) {
  const Node value = plain_scalar("abc");
  ASSERT_EQ(value.kind(), Node::Kind::string);
  EXPECT_EQ(value.as_string(), "abc");
}

TEST(SplitPath, SplitsOnDots) {
  EXPECT_EQ(split_path("a.b.c"), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(SplitPath, SingleComponent) { EXPECT_EQ(split_path("a"), (std::vector<std::string>{"a"})); }

TEST(SplitPath, EmptyPathHasNoComponents) { EXPECT_TRUE(split_path("").empty()); }

Node sample_tree() {
  Node root = Node::map();
  Node inner = Node::map();
  inner.set("c", Node(1));
  Node middle = Node::map();
  middle.set("b", inner);
  root.set("a", middle);
  root.set("s", Node("text"));
  return root;
}

TEST(FindPath, FindsNestedValue) {
  const Node root = sample_tree();
  const Node* value = find_path(root, "a.b.c");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->as_int(), 1);
}

TEST(FindPath, AbsentKeyIsNull) { EXPECT_EQ(find_path(sample_tree(), "a.x"), nullptr); }

TEST(FindPath, PathThroughScalarIsNull) {
  EXPECT_EQ(find_path(sample_tree(), "s.deeper"), nullptr);
}

TEST(FindPath, EmptyPathIsRoot) {
  const Node root = sample_tree();
  EXPECT_EQ(find_path(root, ""), &root);
}

TEST(YamlRoundTrip, StringThatLooksLikeNumberStaysString) {
  Node root = Node::map();
  root.set("s", Node("1"));
  const Node back = parse_yaml(to_yaml(root), "roundtrip");
  ASSERT_NE(back.find("s"), nullptr);
  ASSERT_EQ(back.find("s")->kind(), Node::Kind::string);
  EXPECT_EQ(back.find("s")->as_string(), "1");
}

TEST(YamlRoundTrip, StringsThatLookLikeOtherTypesStayStrings) {
  Node root = Node::map();
  for (const char* text : {"true", "null", "???", "1e-6", ".5", "~"}) root.set(text, Node(text));
  const Node back = parse_yaml(to_yaml(root), "roundtrip");
  for (const char* text : {"true", "null", "???", "1e-6", ".5", "~"}) {
    const Node* value = back.find(text);
    ASSERT_NE(value, nullptr) << text;
    ASSERT_EQ(value->kind(), Node::Kind::string) << text;
    EXPECT_EQ(value->as_string(), text);
  }
}

TEST(YamlRoundTrip, TypedValuesKeepTypes) {
  Node root = Node::map();
  root.set("i", Node(42));
  root.set("r", Node(1e-6));
  root.set("b", Node(false));
  root.set("n", Node());
  root.set("l", Node::list({Node("console"), Node(3)}));
  Node nested = Node::map();
  nested.set("k", Node("v"));
  root.set("m", nested);
  const Node back = parse_yaml(to_yaml(root), "roundtrip");
  ASSERT_EQ(back.find("i")->kind(), Node::Kind::integer);
  EXPECT_EQ(back.find("i")->as_int(), 42);
  ASSERT_EQ(back.find("r")->kind(), Node::Kind::real);
  EXPECT_DOUBLE_EQ(back.find("r")->as_real(), 1e-6);
  ASSERT_EQ(back.find("b")->kind(), Node::Kind::boolean);
  EXPECT_FALSE(back.find("b")->as_bool());
  EXPECT_TRUE(back.find("n")->is_null());
  ASSERT_TRUE(back.find("l")->is_list());
  ASSERT_EQ(back.find("l")->items().size(), 2u);
  EXPECT_EQ(back.find("l")->items()[0].as_string(), "console");
  EXPECT_EQ(back.find("l")->items()[1].as_int(), 3);
  const Node* k = find_path(back, "m.k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->as_string(), "v");
}

TEST(ParseYaml, QuotedScalarStaysString) {
  const Node root = parse_yaml("a: '1'\nb: 1\n", "inline");
  ASSERT_EQ(root.find("a")->kind(), Node::Kind::string);
  EXPECT_EQ(root.find("a")->as_string(), "1");
  ASSERT_EQ(root.find("b")->kind(), Node::Kind::integer);
  EXPECT_EQ(root.find("b")->as_int(), 1);
}

TEST(ParseYaml, KeepsKeyOrder) {
  const Node root = parse_yaml("z: 1\na: 2\nm: 3\n", "inline");
  ASSERT_EQ(root.entries().size(), 3u);
  EXPECT_EQ(root.entries()[0].first, "z");
  EXPECT_EQ(root.entries()[1].first, "a");
  EXPECT_EQ(root.entries()[2].first, "m");
}

TEST(ParseYaml, ErrorNamesSourceAndLine) {
  // Line 3 holds a second ': ' inside a plain value, which YAML rejects.
  try {
    parse_yaml("a: 1\nb: 2\nc: d: e\n", "my_config.yaml");
    FAIL() << "malformed YAML was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("my_config.yaml:3:"), std::string::npos) << e.what();
  }
}

// Nesting deeper than yaml-cpp's parser takes (flow lists, block maps) says so, as the nesting
// verlpp refuses itself does, instead of yaml-cpp's "bad file".
TEST(ParseYaml, DeepNestingSaysSo) {
  std::string block;
  for (int i = 0; i < 3000; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  for (const std::string& text :
       {"a: " + std::string(200000, '[') + std::string(200000, ']') + "\n", block}) {
    try {
      parse_yaml(text, "deep.yaml");
      FAIL() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("nests more than 256 levels deep"), std::string::npos)
          << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("deep.yaml:", 0), 0u) << e.what();
    }
  }
}

// Bytes outside UTF-8 (a Latin-1 é, a lone continuation byte, a cut-off sequence) and characters
// YAML does not allow are an error at the line and column of the first one, counted by hand; valid
// UTF-8 of 1-4 bytes, tab and CR LF read back.
TEST(ParseYaml, TextThatIsNotUtf8IsAnErrorAtItsPosition) {
  const std::pair<std::string, std::string> cases[] = {
      {"a: 1\nb: caf\xe9\n", "my.yaml:2:7: not UTF-8 text (byte 0xe9)"},
      {"\x80"
       "a: 1\n",
       "my.yaml:1:1: not UTF-8 text (byte 0x80)"},
      {"a: 1\nb: 2\nc: \xe2\x82", "my.yaml:3:4: not UTF-8 text (byte 0xe2)"},
  };
  for (const auto& [text, want] : cases) {
    try {
      parse_yaml(text, "my.yaml");
      FAIL() << "accepted: " << want;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
  // Characters YAML does not allow, even as valid UTF-8 (NUL, a C0 control, U+FFFE).
  const std::pair<std::string, std::string> controls[] = {
      {std::string("a: 1\nb: a\0b\n", 12), "my.yaml:2:5: character U+0000 is not allowed"},
      {"a: x\x01y\n", "my.yaml:1:5: character U+0001 is not allowed"},
      {"a: \xef\xbf\xbe\n", "my.yaml:1:4: character U+FFFE is not allowed"},
  };
  for (const auto& [text, want] : controls) {
    try {
      parse_yaml(text, "my.yaml");
      FAIL() << "accepted: " << want;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
  const Node root =
      parse_yaml("name: \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\t\r\n", "my.yaml");
  EXPECT_EQ(root.find("name")->as_string(), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace verlpp::config
