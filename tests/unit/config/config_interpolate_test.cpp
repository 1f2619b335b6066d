// OmegaConf interpolation as verl's YAML uses it (../shared/reference/verl.md §1.2).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "verlpp/config/interpolate.h"
#include "verlpp/config/node.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"

namespace verlpp::config {
namespace {

Node resolved(const std::string& yaml) {
  Node root = parse_yaml(yaml, "test");
  resolve_interpolations(root);
  return root;
}

const Node& at(const Node& root, const std::string& path) {
  const Node* node = find_path(root, path);
  EXPECT_NE(node, nullptr) << path;
  static const Node absent;
  return node == nullptr ? absent : *node;
}

TEST(Interpolate, AbsoluteReferenceKeepsIntegerType) {
  const Node root = resolved("a:\n  b: 7\nc: ${a.b}\n");
  ASSERT_EQ(at(root, "c").kind(), Node::Kind::integer);
  EXPECT_EQ(at(root, "c").as_int(), 7);
}

TEST(Interpolate, AbsoluteReferenceKeepsListType) {
  const Node root = resolved("a: [1, 2]\nc: ${a}\n");
  ASSERT_TRUE(at(root, "c").is_list());
  EXPECT_EQ(at(root, "c").items().size(), 2u);
}

TEST(Interpolate, ChainedReferences) {
  const Node root = resolved("a: 1\nb: ${a}\nc: ${b}\n");
  ASSERT_EQ(at(root, "c").kind(), Node::Kind::integer);
  EXPECT_EQ(at(root, "c").as_int(), 1);
}

// A reference through a key that is itself an interpolation of a map (OmegaConf resolves it).
TEST(Interpolate, ReferenceThroughAnInterpolatedMap) {
  const Node root = resolved("b:\n  x: 5\na: ${b}\nc: ${a.x}\nd: ${oc.select:a.y,9}\n");
  EXPECT_EQ(find_path(root, "c")->as_int(), 5);
  EXPECT_EQ(find_path(root, "d")->as_int(), 9);
}

TEST(Interpolate, ForwardReference) {
  const Node root = resolved("c: ${a}\na: 3\n");
  EXPECT_EQ(at(root, "c").as_int(), 3);
}

TEST(Interpolate, EmbeddedReferenceSplicesText) {
  const Node root = resolved("a: 5\nname: run\ns: x/${a}/y\nt: ${name}-${a}\n");
  ASSERT_EQ(at(root, "s").kind(), Node::Kind::string);
  EXPECT_EQ(at(root, "s").as_string(), "x/5/y");
  EXPECT_EQ(at(root, "t").as_string(), "run-5");
}

TEST(Interpolate, SiblingReference) {
  const Node root = resolved("outer:\n  sib: 4\n  ref: ${.sib}\n");
  ASSERT_EQ(at(root, "outer.ref").kind(), Node::Kind::integer);
  EXPECT_EQ(at(root, "outer.ref").as_int(), 4);
}

TEST(Interpolate, ParentRelativeReference) {
  const Node root = resolved(
      "top:\n"
      "  up:\n"
      "    x: 9\n"
      "  mid:\n"
      "    ref: ${..up.x}\n");
  EXPECT_EQ(at(root, "top.mid.ref").as_int(), 9);
}

TEST(Interpolate, SelectMissingKeyGivesDefault) {
  const Node root = resolved("v: ${oc.select:missing.key,512}\n");
  ASSERT_EQ(at(root, "v").kind(), Node::Kind::integer);
  EXPECT_EQ(at(root, "v").as_int(), 512);
}

TEST(Interpolate, SelectPresentKeyGivesValue) {
  const Node root = resolved("present: 2048\nv: ${oc.select:present,1}\n");
  EXPECT_EQ(at(root, "v").as_int(), 2048);
}

TEST(Interpolate, SelectUnsetKeyGivesDefault) {
  const Node root = resolved("unset: ???\nv: ${oc.select:unset,3}\n");
  EXPECT_EQ(at(root, "v").as_int(), 3);
}

TEST(Interpolate, SelectWithoutDefaultOfAbsentKeyIsNull) {
  const Node root = resolved("v: ${oc.select:nope}\n");
  EXPECT_TRUE(at(root, "v").is_null());
}

TEST(Interpolate, SelectFollowsReferencedInterpolation) {
  const Node root = resolved("data:\n  n: 64\nmid: ${data.n}\nv: ${oc.select:mid,1}\n");
  EXPECT_EQ(at(root, "v").as_int(), 64);
}

TEST(Interpolate, NestedSelectUsesInnerWhenOuterAbsent) {
  const Node root = resolved("b: 4\nv: ${oc.select:a,${oc.select:b,null}}\n");
  EXPECT_EQ(at(root, "v").as_int(), 4);
}

TEST(Interpolate, NestedSelectFallsThroughToNull) {
  const Node root = resolved("v: ${oc.select:a,${oc.select:b,null}}\n");
  EXPECT_TRUE(at(root, "v").is_null());
}

TEST(Interpolate, NestedSelectPrefersOuter) {
  const Node root = resolved("a: 1\nb: 4\nv: ${oc.select:a,${oc.select:b,null}}\n");
  EXPECT_EQ(at(root, "v").as_int(), 1);
}

TEST(Interpolate, RelativeSelectWithDefault) {
  // critic.ppo_micro_batch_size_per_gpu: ${oc.select:.ppo_micro_batch_size,null}
  const Node root = resolved(
      "critic:\n"
      "  ppo_micro_batch_size: 8\n"
      "  per_gpu: ${oc.select:.ppo_micro_batch_size,null}\n");
  EXPECT_EQ(at(root, "critic.per_gpu").as_int(), 8);
}

TEST(Interpolate, InterpolationInsideList) {
  const Node root = resolved("a: 2\nl:\n  - ${a}\n  - x\n");
  ASSERT_TRUE(at(root, "l").is_list());
  ASSERT_EQ(at(root, "l").items()[0].kind(), Node::Kind::integer);
  EXPECT_EQ(at(root, "l").items()[0].as_int(), 2);
}

TEST(Interpolate, EnvVariableWhenSet) {
  ::setenv("VERLPP_INTERPOLATE_TEST_VAR", "hello", 1);
  const Node root = resolved("v: ${oc.env:VERLPP_INTERPOLATE_TEST_VAR,dflt}\n");
  ::unsetenv("VERLPP_INTERPOLATE_TEST_VAR");
  EXPECT_EQ(at(root, "v").as_string(), "hello");
}

TEST(Interpolate, EnvDefaultWhenUnset) {
  ::unsetenv("VERLPP_INTERPOLATE_TEST_VAR");
  const Node root = resolved("v: ${oc.env:VERLPP_INTERPOLATE_TEST_VAR,dflt}\n");
  EXPECT_EQ(at(root, "v").as_string(), "dflt");
}

TEST(Interpolate, EnvUnsetWithoutDefaultThrows) {
  ::unsetenv("VERLPP_INTERPOLATE_TEST_VAR");
  Node root = parse_yaml("v: ${oc.env:VERLPP_INTERPOLATE_TEST_VAR}\n", "test");
  EXPECT_THROW(resolve_interpolations(root), Error);
}

TEST(Interpolate, ReferenceToUnsetValueThrows) {
  Node root = parse_yaml("a: ???\nb: ${a}\n", "test");
  EXPECT_THROW(resolve_interpolations(root), Error);
}

TEST(Interpolate, ReferenceToAbsentKeyThrowsNamingHolder) {
  Node root = parse_yaml("holder:\n  ref: ${no.such.key}\n", "test");
  try {
    resolve_interpolations(root);
    FAIL() << "dangling reference accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holder.ref"), std::string::npos) << e.what();
  }
}

TEST(Interpolate, CycleThrows) {
  Node root = parse_yaml("a: ${b}\nb: ${a}\n", "test");
  EXPECT_THROW(resolve_interpolations(root), Error);
}

TEST(Interpolate, SelfReferenceThrows) {
  Node root = parse_yaml("a: ${a}\n", "test");
  EXPECT_THROW(resolve_interpolations(root), Error);
}

TEST(Interpolate, UnknownOcResolverThrows) {
  Node root = parse_yaml("a: ${oc.decode:abc}\n", "test");
  EXPECT_THROW(resolve_interpolations(root), Error);
}

TEST(Interpolate, UnknownCustomResolverThrows) {
  Node root = parse_yaml("a: ${now:%Y-%m-%d}\n", "test");
  EXPECT_THROW(resolve_interpolations(root), Error);
}

}  // namespace
}  // namespace verlpp::config
