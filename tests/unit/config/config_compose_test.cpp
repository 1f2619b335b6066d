// Composition of the built-in verl configs, user files with a defaults list, and merging
// (../shared/reference/verl.md §1.1-§1.13 for the default values).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/config/compose.h"
#include "verlpp/config/node.h"
#include "verlpp/config/yaml_io.h"
#include "verlpp/core/error.h"

namespace verlpp::config {
namespace {

namespace fs = std::filesystem;

Node compose(std::vector<std::string> overrides, const std::string& name = "ppo_trainer") {
  return compose_config({std::nullopt, name, std::move(overrides)}).root;
}

const Node& at(const Node& root, const std::string& path) {
  const Node* node = find_path(root, path);
  EXPECT_NE(node, nullptr) << path;
  static const Node absent;
  return node == nullptr ? absent : *node;
}

TEST(ComposePpoTrainer, TrainBatchSizeDefault) {
  const Node root = compose({});
  ASSERT_EQ(at(root, "data.train_batch_size").kind(), Node::Kind::integer);
  EXPECT_EQ(at(root, "data.train_batch_size").as_int(), 1024);
}

TEST(ComposePpoTrainer, ActorLearningRateDefault) {
  const Node root = compose({});
  ASSERT_EQ(at(root, "actor_rollout_ref.actor.optim.lr").kind(), Node::Kind::real);
  EXPECT_DOUBLE_EQ(at(root, "actor_rollout_ref.actor.optim.lr").as_real(), 1e-6);
}

TEST(ComposePpoTrainer, CriticLearningRateDefault) {
  EXPECT_DOUBLE_EQ(at(compose({}), "critic.optim.lr").as_real(), 1e-5);
}

TEST(ComposePpoTrainer, RolloutNameIsUnsetByDefault) {
  EXPECT_TRUE(at(compose({}), "actor_rollout_ref.rollout.name").is_missing());
}

TEST(ComposePpoTrainer, PromptLengthDefaultsToDataMaxPromptLength) {
  EXPECT_EQ(at(compose({}), "actor_rollout_ref.rollout.prompt_length").as_int(), 512);
}

TEST(ComposePpoTrainer, PromptLengthFollowsOverriddenDataMaxPromptLength) {
  const Node root = compose({"data.max_prompt_length=2048"});
  ASSERT_EQ(at(root, "actor_rollout_ref.rollout.prompt_length").kind(), Node::Kind::integer);
  EXPECT_EQ(at(root, "actor_rollout_ref.rollout.prompt_length").as_int(), 2048);
}

TEST(ComposePpoTrainer, ResponseLengthFollowsDataMaxResponseLength) {
  const Node root = compose({"data.max_response_length=261120"});
  EXPECT_EQ(at(root, "actor_rollout_ref.rollout.response_length").as_int(), 261120);
}

TEST(ComposePpoTrainer, CriticMiniBatchFollowsActorDefault) {
  EXPECT_EQ(at(compose({}), "critic.ppo_mini_batch_size").as_int(), 256);
}

TEST(ComposePpoTrainer, CriticMiniBatchFollowsActorOverride) {
  const Node root = compose({"actor_rollout_ref.actor.ppo_mini_batch_size=64"});
  EXPECT_EQ(at(root, "critic.ppo_mini_batch_size").as_int(), 64);
}

TEST(ComposePpoTrainer, ActorRolloutNFollowsRolloutN) {
  const Node root = compose({"actor_rollout_ref.rollout.n=5"});
  EXPECT_EQ(at(root, "actor_rollout_ref.actor.rollout_n").as_int(), 5);
}

TEST(ComposePpoTrainer, RefStrategyFollowsActor) {
  EXPECT_EQ(at(compose({}), "actor_rollout_ref.ref.strategy").as_string(), "fsdp");
}

TEST(ComposePpoTrainer, DefaultLocalDir) {
  EXPECT_EQ(at(compose({}), "trainer.default_local_dir").as_string(),
            "checkpoints/verl_examples/gsm8k");
}

TEST(ComposePpoTrainer, DefaultLocalDirFollowsProjectName) {
  const Node root = compose({"trainer.project_name=p", "trainer.experiment_name=e"});
  EXPECT_EQ(at(root, "trainer.default_local_dir").as_string(), "checkpoints/p/e");
}

TEST(ComposePpoTrainer, DefaultIsFsdpEngine) {
  const Node root = compose({});
  EXPECT_NE(find_path(root, "actor_rollout_ref.actor.fsdp_config"), nullptr);
  EXPECT_EQ(find_path(root, "actor_rollout_ref.actor.megatron"), nullptr);
}

TEST(ComposePpoTrainer, OverridesApplyInOrder) {
  const Node root = compose({"data.train_batch_size=8", "data.train_batch_size=16"});
  EXPECT_EQ(at(root, "data.train_batch_size").as_int(), 16);
}

TEST(ComposePpoTrainer, UnknownOverrideKeyThrows) {
  EXPECT_THROW(compose({"data.train_batch=8"}), Error);
}

TEST(ComposeMegatron, HasMegatronTensorParallelSize) {
  const Node root = compose({}, "ppo_megatron_trainer.yaml");
  const Node& tp = at(root, "actor_rollout_ref.actor.megatron.tensor_model_parallel_size");
  ASSERT_EQ(tp.kind(), Node::Kind::integer);
  EXPECT_EQ(tp.as_int(), 1);
}

TEST(ComposeMegatron, HasNoFsdpConfig) {
  const Node root = compose({}, "ppo_megatron_trainer.yaml");
  EXPECT_EQ(find_path(root, "actor_rollout_ref.actor.fsdp_config"), nullptr);
}

TEST(ComposeMegatron, ActorStrategyIsMegatron) {
  const Node root = compose({}, "ppo_megatron_trainer");
  EXPECT_EQ(at(root, "actor_rollout_ref.actor.strategy").as_string(), "megatron");
  EXPECT_EQ(at(root, "actor_rollout_ref.ref.strategy").as_string(), "megatron");
}

TEST(ComposeMegatron, KeepsPpoTrainerDefaults) {
  EXPECT_EQ(at(compose({}, "ppo_megatron_trainer"), "data.train_batch_size").as_int(), 1024);
}

TEST(ComposeMegatron, AddsUnevenPipelineKey) {
  const Node root = compose({"+actor_rollout_ref.actor.megatron.override_transformer_config."
                             "num_layers_in_first_pipeline_stage=5"},
                            "ppo_megatron_trainer");
  EXPECT_EQ(at(root,
               "actor_rollout_ref.actor.megatron.override_transformer_config."
               "num_layers_in_first_pipeline_stage")
                .as_int(),
            5);
}

TEST(ComposeConfig, UnknownConfigNameThrows) {
  try {
    compose({}, "no_such_config");
    FAIL() << "unknown config accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_config"), std::string::npos) << e.what();
  }
}

// A --config-path directory holding one YAML file, removed afterwards.
class UserConfigDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("verlpp_compose_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  ComposedConfig compose_user(const std::string& name, std::vector<std::string> overrides = {}) {
    return compose_config({dir_.string(), name, std::move(overrides)});
  }
  fs::path dir_;
};

TEST_F(UserConfigDir, SelfLastOverridesBuiltIn) {
  write("my_run.yaml", "defaults:\n  - ppo_trainer\n  - _self_\ndata:\n  train_batch_size: 64\n");
  const ComposedConfig composed = compose_user("my_run");
  EXPECT_EQ(at(composed.root, "data.train_batch_size").as_int(), 64);
  EXPECT_EQ(at(composed.root, "data.max_prompt_length").as_int(), 512);
  EXPECT_EQ(find_path(composed.root, "defaults"), nullptr);
}

TEST_F(UserConfigDir, UserKeysListFileKeys) {
  write("my_run.yaml", "defaults:\n  - ppo_trainer\n  - _self_\ndata:\n  train_batch_size: 64\n");
  const ComposedConfig composed = compose_user("my_run");
  EXPECT_NE(
      std::find(composed.user_keys.begin(), composed.user_keys.end(), "data.train_batch_size"),
      composed.user_keys.end());
}

TEST_F(UserConfigDir, SelfFirstIsOverriddenByBuiltIn) {
  write("my_run.yaml", "defaults:\n  - _self_\n  - ppo_trainer\ndata:\n  train_batch_size: 64\n");
  EXPECT_EQ(at(compose_user("my_run").root, "data.train_batch_size").as_int(), 1024);
}

TEST_F(UserConfigDir, CommandLineOverridesUserFile) {
  write("my_run.yaml", "defaults:\n  - ppo_trainer\n  - _self_\ndata:\n  train_batch_size: 64\n");
  const Node root = compose_user("my_run", {"data.train_batch_size=32"}).root;
  EXPECT_EQ(at(root, "data.train_batch_size").as_int(), 32);
}

TEST_F(UserConfigDir, UserFileValueFeedsInterpolation) {
  write("my_run.yaml",
        "defaults:\n  - ppo_trainer\n  - _self_\ndata:\n  max_prompt_length: 1024\n");
  EXPECT_EQ(at(compose_user("my_run").root, "actor_rollout_ref.rollout.prompt_length").as_int(),
            1024);
}

TEST_F(UserConfigDir, MalformedUserFileThrows) {
  write("bad.yaml", "defaults:\n  - ppo_trainer\ndata: [1, 2\n");
  EXPECT_THROW(compose_user("bad"), Error);
}

// A config name that is a folder or a link loop in --config-path: one error naming the file (a
// break-test got "internal error: basic_filebuf::underflow" and "filesystem error").
TEST_F(UserConfigDir, FolderOrLinkLoopIsAnErrorNamingTheFile) {
  fs::create_directories(dir_ / "folder.yaml");
  fs::create_symlink(dir_ / "loop.yaml", dir_ / "loop.yaml");
  const auto error_of = [&](const std::string& name) {
    try {
      compose_user(name);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("folder"),
            (dir_ / "folder.yaml").string() + ": the config is a folder, not a file");
  EXPECT_EQ(error_of("loop"),
            (dir_ / "loop.yaml").string() + ": the config: Too many levels of symbolic links");
}

// A 1 kB "billion laughs" file (10^9 values through aliases) and 300 levels of nesting: each a
// bounded error naming the file, not hours of work or a stack overflow.
TEST(ConfigYaml, AliasBombsAndDeepNestingAreBounded) {
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    bomb += fmt::format(
        "a{0}: &a{0} [*a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}]\n", i,
        i - 1);
  }
  try {
    parse_yaml(bomb, "bomb.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bomb.yaml:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expands to more than 1000000 values"), std::string::npos)
        << e.what();
  }
  // 300 levels: verlpp's own limit of 256, under yaml-cpp's; the same words as yaml-cpp's limit.
  try {
    parse_yaml("a: " + std::string(300, '[') + std::string(300, ']'), "deep.yaml");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the YAML nests more than 256 levels deep"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(parse_yaml("a: " + std::string(100, '[') + std::string(100, ']'), "ok.yaml"));
}

TEST(MergeInto, DeleteMarkerRemovesKeyAndMapsMerge) {
  Node base = parse_yaml("a: 1\nb:\n  c: 2\n  d: 3\n", "base");
  const Node overlay = parse_yaml("a: 5\nb:\n  c: __delete__\n  e: 4\n", "overlay");
  merge_into(base, overlay);
  EXPECT_EQ(at(base, "a").as_int(), 5);
  EXPECT_EQ(find_path(base, "b.c"), nullptr);
  EXPECT_EQ(at(base, "b.d").as_int(), 3);
  EXPECT_EQ(at(base, "b.e").as_int(), 4);
}

TEST(MergeInto, DeleteMarkerRemovesWholeMap) {
  Node base = parse_yaml("keep: 1\ngone:\n  x: 1\n", "base");
  merge_into(base, parse_yaml("gone: __delete__\n", "overlay"));
  EXPECT_EQ(find_path(base, "gone"), nullptr);
  EXPECT_EQ(at(base, "keep").as_int(), 1);
}

TEST(MergeInto, ListsReplace) {
  Node base = parse_yaml("l: [1, 2]\n", "base");
  merge_into(base, parse_yaml("l: [3]\n", "overlay"));
  ASSERT_TRUE(at(base, "l").is_list());
  ASSERT_EQ(at(base, "l").items().size(), 1u);
  EXPECT_EQ(at(base, "l").items()[0].as_int(), 3);
}

TEST(MergeInto, ScalarReplacesMap) {
  Node base = parse_yaml("m:\n  x: 1\n", "base");
  merge_into(base, parse_yaml("m: null\n", "overlay"));
  EXPECT_TRUE(at(base, "m").is_null());
}

// OmegaConf refuses a key given twice in one mapping; the error names the file, line and key.
TEST(ParseYaml, DuplicateKeyIsAnError) {
  try {
    parse_yaml("a: 1\nb:\n  c: 2\n  c: 3\n", "dup.yaml");
    FAIL() << "a duplicate key was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "dup.yaml:4:3: duplicate key 'c' in a mapping");
  }
  EXPECT_NO_THROW(parse_yaml("a:\n  c: 1\nb:\n  c: 2\n", "same key in two maps"));
}

// verl's SFT scripts choose config groups (`engine=fsdp`, bt13): the composed default is kept
// and the choice is not a user key; another option is refused naming the group's file.
TEST(ComposeSftTrainer, ConfigGroupChoices) {
  const ComposedConfig chosen = compose_config(
      {std::nullopt, "sft_trainer", {"engine=fsdp", "optim=fsdp", "model=hf_model"}});
  EXPECT_EQ(at(chosen.root, "engine.strategy").as_string(), "fsdp");
  EXPECT_TRUE(at(chosen.root, "optim").is_map());
  EXPECT_TRUE(chosen.user_keys.empty());
  try {
    compose({"engine=megatron"}, "sft_trainer");
    ADD_FAILURE() << "engine=megatron accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("engine/megatron.yaml"), std::string::npos) << e.what();
  }
  EXPECT_THROW(compose({"engine=fsdp"}), Error);  // ppo_trainer has no such group
}

}  // namespace
}  // namespace verlpp::config
