// Hydra override parsing and application (../shared/reference/verl.md §1.2). Arguments are written
// as a verl launch script's argv looks after the shell has removed its own quotes.
#include <gtest/gtest.h>

#include <string>

#include "verlpp/config/node.h"
#include "verlpp/config/override.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"

namespace verlpp::config {
namespace {

Node value_of(const std::string& argument) {
  const Override item = parse_override(argument);
  EXPECT_TRUE(item.value.has_value()) << argument;
  return item.value.value_or(Node());
}

TEST(ParseOverride, PlainSet) {
  const Override item = parse_override("a.b=v");
  EXPECT_EQ(item.op, Override::Op::set);
  EXPECT_EQ(item.path, "a.b");
  ASSERT_TRUE(item.value.has_value());
  ASSERT_EQ(item.value->kind(), Node::Kind::string);
  EXPECT_EQ(item.value->as_string(), "v");
}

TEST(ParseOverride, PlusIsAdd) {
  const Override item = parse_override("+a.b=1");
  EXPECT_EQ(item.op, Override::Op::add);
  EXPECT_EQ(item.path, "a.b");
  ASSERT_EQ(item.value->kind(), Node::Kind::integer);
  EXPECT_EQ(item.value->as_int(), 1);
}

TEST(ParseOverride, DoublePlusIsForce) {
  const Override item = parse_override("++a.b=True");
  EXPECT_EQ(item.op, Override::Op::force);
  EXPECT_EQ(item.path, "a.b");
  ASSERT_EQ(item.value->kind(), Node::Kind::boolean);
  EXPECT_TRUE(item.value->as_bool());
}

TEST(ParseOverride, TildeIsRemoveWithoutValue) {
  const Override item = parse_override("~a.b");
  EXPECT_EQ(item.op, Override::Op::remove);
  EXPECT_EQ(item.path, "a.b");
  EXPECT_FALSE(item.value.has_value());
}

TEST(ParseOverride, ListWithQuotedAndTypedItems) {
  const Node list = value_of("k=[a,'b',3]");
  ASSERT_TRUE(list.is_list());
  ASSERT_EQ(list.items().size(), 3u);
  EXPECT_EQ(list.items()[0].as_string(), "a");
  EXPECT_EQ(list.items()[1].as_string(), "b");
  ASSERT_EQ(list.items()[2].kind(), Node::Kind::integer);
  EXPECT_EQ(list.items()[2].as_int(), 3);
}

TEST(ParseOverride, QuotedNumberInListStaysString) {
  const Node list = value_of("k=['3',3]");
  ASSERT_EQ(list.items().size(), 2u);
  ASSERT_EQ(list.items()[0].kind(), Node::Kind::string);
  EXPECT_EQ(list.items()[0].as_string(), "3");
  EXPECT_EQ(list.items()[1].kind(), Node::Kind::integer);
}

TEST(ParseOverride, LoggerListOfDoubleQuotedStrings) {
  // trainer.logger='["console","tensorboard"]' reaches the program without the single quotes.
  const Node list = value_of(R"(trainer.logger=["console","tensorboard"])");
  ASSERT_TRUE(list.is_list());
  ASSERT_EQ(list.items().size(), 2u);
  EXPECT_EQ(list.items()[0].as_string(), "console");
  EXPECT_EQ(list.items()[1].as_string(), "tensorboard");
}

TEST(ParseOverride, EmptyList) {
  const Node list = value_of("k=[]");
  ASSERT_TRUE(list.is_list());
  EXPECT_TRUE(list.items().empty());
}

TEST(ParseOverride, Dict) {
  const Node dict = value_of("k={a:v,b:[1,2]}");
  ASSERT_TRUE(dict.is_map());
  ASSERT_EQ(dict.entries().size(), 2u);
  EXPECT_EQ(dict.find("a")->as_string(), "v");
  ASSERT_TRUE(dict.find("b")->is_list());
  EXPECT_EQ(dict.find("b")->items()[1].as_int(), 2);
}

TEST(ParseOverride, FsdpPlanEscapedBracesBecomeLiteralKeys) {
  const Node dict =
      value_of(R"(a.fsdp_plan.apply_modules={model.visual.blocks.\{*\}:{},lm_head:{}})");
  ASSERT_TRUE(dict.is_map());
  ASSERT_EQ(dict.entries().size(), 2u);
  EXPECT_EQ(dict.entries()[0].first, "model.visual.blocks.{*}");
  EXPECT_TRUE(dict.entries()[0].second.is_map());
  EXPECT_TRUE(dict.entries()[0].second.entries().empty());
  EXPECT_EQ(dict.entries()[1].first, "lm_head");
  EXPECT_TRUE(dict.entries()[1].second.is_map());
}

TEST(ParseOverride, ListOfDicts) {
  const Node list = value_of("k=[{target_functions:['pkg.fn'],type:full_attention}]");
  ASSERT_TRUE(list.is_list());
  ASSERT_EQ(list.items().size(), 1u);
  const Node& dict = list.items()[0];
  ASSERT_TRUE(dict.is_map());
  const Node* functions = dict.find("target_functions");
  ASSERT_NE(functions, nullptr);
  ASSERT_TRUE(functions->is_list());
  ASSERT_EQ(functions->items().size(), 1u);
  EXPECT_EQ(functions->items()[0].as_string(), "pkg.fn");
  EXPECT_EQ(dict.find("type")->as_string(), "full_attention");
}

TEST(ParseOverride, QuotedStringKeepsSpacesAndCommas) {
  EXPECT_EQ(value_of("k='hello world'").as_string(), "hello world");
  EXPECT_EQ(value_of(R"(k="x,y")").as_string(), "x,y");
}

TEST(ParseOverride, QuotedNumberStaysString) {
  const Node value = value_of("k='1'");
  ASSERT_EQ(value.kind(), Node::Kind::string);
  EXPECT_EQ(value.as_string(), "1");
}

TEST(ParseOverride, NullIsNull) { EXPECT_TRUE(value_of("k=null").is_null()); }

TEST(ParseOverride, ExponentIsReal) {
  const Node value = value_of("actor_rollout_ref.actor.optim.lr=1e-6");
  ASSERT_EQ(value.kind(), Node::Kind::real);
  EXPECT_DOUBLE_EQ(value.as_real(), 1e-6);
}

TEST(ParseOverride, InterpolationKeptVerbatim) {
  const Node value = value_of("k=${oc.select:a.b,1}");
  ASSERT_EQ(value.kind(), Node::Kind::string);
  EXPECT_EQ(value.as_string(), "${oc.select:a.b,1}");
}

TEST(ParseOverride, UnbalancedBracketThrows) { EXPECT_THROW(parse_override("k=[1,2"), Error); }

TEST(ParseOverride, UnterminatedQuoteThrows) { EXPECT_THROW(parse_override("k='abc"), Error); }

TEST(ParseOverride, CommaSweepThrows) { EXPECT_THROW(parse_override("k=a,b"), Error); }

TEST(ParseOverride, MissingEqualsThrows) { EXPECT_THROW(parse_override("a.b"), Error); }

TEST(ParseOverride, EmptyKeyThrows) { EXPECT_THROW(parse_override("=1"), Error); }

// Values and keys deeper than the config YAML's 256 levels (a break-test's 20,000-deep map and
// 50,000-part key ended in std::bad_alloc).
TEST(ParseOverride, DeepValuesAndKeysAreRefused) {
  const auto error_of = [](const std::string& argument) {
    try {
      parse_override(argument);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string deep_map = "+trainer.x=";
  for (int i = 0; i < 20000; ++i) deep_map += "{a:";
  deep_map += "1" + std::string(20000, '}');
  EXPECT_NE(error_of(deep_map).find("lists and maps nested more than 256 levels deep"),
            std::string::npos);
  EXPECT_NE(error_of("k=" + std::string(300, '[') + std::string(300, ']'))
                .find("nested more than 256 levels deep"),
            std::string::npos);
  EXPECT_EQ(error_of("k=" + std::string(256, '[') + std::string(256, ']')), "no error");
  std::string long_key = "+k";
  for (int i = 0; i < 300; ++i) long_key += ".k";
  EXPECT_NE(error_of(long_key + "=1").find("the key has more than 256 dotted parts"),
            std::string::npos);
}

TEST(ParseOverride, ErrorQuotesArgument) {
  try {
    parse_override("data.train_files=[a,b");
    FAIL() << "malformed value accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("data.train_files=[a,b"), std::string::npos) << e.what();
  }
}

Node trainer_tree() {
  return parse_yaml(
      "trainer:\n"
      "  total_epochs: 30\n"
      "  nnodes: 1\n"
      "  resume_from_path: null\n"
      "cfg:\n"
      "  a: 1\n",
      "test");
}

void apply(Node& root, const std::string& argument) {
  EXPECT_EQ(apply_override(root, parse_override(argument)), Applied::yes) << argument;
}

TEST(ApplyOverride, SetExistingKey) {
  Node root = trainer_tree();
  apply(root, "trainer.nnodes=2");
  EXPECT_EQ(find_path(root, "trainer.nnodes")->as_int(), 2);
}

TEST(ApplyOverride, UnknownKeyThrowsNamingClosestKey) {
  Node root = trainer_tree();
  try {
    apply_override(root, parse_override("trainer.total_epoch=5"));
    FAIL() << "unknown key accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer.total_epochs"), std::string::npos) << e.what();
  }
}

TEST(ApplyOverride, UnknownKeyWithoutPrefixSuggestsFullKey) {
  Node root = trainer_tree();
  try {
    apply_override(root, parse_override("total_epochs=5"));
    FAIL() << "unknown key accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer.total_epochs"), std::string::npos) << e.what();
  }
}

// A scalar or a list cannot replace a section, by = or ++ (OmegaConf would, and the run then fails
// on the first key read from it); the example key is a plain value of the section. null still
// empties one; a map merges into it, as Hydra's OmegaConf.update(merge=True) does: {} changes
// nothing.
TEST(ApplyOverride, ValueOverASectionNamesTheSection) {
  for (const char* argument : {"trainer=3", "trainer=[1,2]", "++trainer=3"}) {
    Node root = parse_yaml("trainer:\n  path: ${x}\n  total_epochs: 30\n  nnodes: 1\nx: 1\n", "t");
    try {
      apply_override(root, parse_override(argument));
      FAIL() << argument << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'trainer' is a section of 3 keys, not a value (set one "
                                           "of its keys, e.g. trainer.total_epochs=...)"),
                std::string::npos)
          << e.what();
    }
    EXPECT_EQ(find_path(root, "trainer.nnodes")->as_int(), 1);
  }
  Node root = trainer_tree();
  apply(root, "trainer={nnodes:4}");
  EXPECT_EQ(find_path(root, "trainer.nnodes")->as_int(), 4);
  EXPECT_EQ(find_path(root, "trainer.total_epochs")->as_int(), 30);
  apply(root, "trainer={}");
  EXPECT_EQ(find_path(root, "trainer.total_epochs")->as_int(), 30);
  apply(root, "trainer=null");
  EXPECT_TRUE(find_path(root, "trainer")->is_null());
}

TEST(ApplyOverride, AddOnNonNullScalarThrows) {
  Node root = trainer_tree();
  EXPECT_THROW(apply_override(root, parse_override("+trainer.nnodes=2")), Error);
  EXPECT_EQ(find_path(root, "trainer.nnodes")->as_int(), 1);
}

TEST(ApplyOverride, AddOnNullKeySetsIt) {
  Node root = trainer_tree();
  apply(root, "+trainer.resume_from_path=/ckpt/global_step_10");
  EXPECT_EQ(find_path(root, "trainer.resume_from_path")->as_string(), "/ckpt/global_step_10");
}

TEST(ApplyOverride, AddNewKeyCreatesParents) {
  Node root = trainer_tree();
  apply(root, "+trainer.extra.depth=3");
  EXPECT_EQ(find_path(root, "trainer.extra.depth")->as_int(), 3);
}

TEST(ApplyOverride, AddMapMergesIntoExistingMap) {
  Node root = trainer_tree();
  apply(root, "+cfg={b:2}");
  EXPECT_EQ(find_path(root, "cfg.a")->as_int(), 1);
  EXPECT_EQ(find_path(root, "cfg.b")->as_int(), 2);
}

TEST(ApplyOverride, ForceOverridesExistingKey) {
  Node root = trainer_tree();
  apply(root, "++trainer.nnodes=4");
  EXPECT_EQ(find_path(root, "trainer.nnodes")->as_int(), 4);
}

TEST(ApplyOverride, ForceAddsAbsentKey) {
  Node root = trainer_tree();
  apply(root, "++trainer.new_key=x");
  EXPECT_EQ(find_path(root, "trainer.new_key")->as_string(), "x");
}

TEST(ApplyOverride, TildeDeletes) {
  Node root = trainer_tree();
  apply(root, "~trainer.nnodes");
  EXPECT_EQ(find_path(root, "trainer.nnodes"), nullptr);
  EXPECT_NE(find_path(root, "trainer.total_epochs"), nullptr);
}

TEST(ApplyOverride, TildeOfAbsentKeyThrows) {
  Node root = trainer_tree();
  EXPECT_THROW(apply_override(root, parse_override("~trainer.not_there")), Error);
}

}  // namespace
}  // namespace verlpp::config
