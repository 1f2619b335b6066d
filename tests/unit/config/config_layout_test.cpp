// Parallel layout planning (../shared/reference/verl.md §2 "Megatron parallel-size rules",
// "Runtime asserts", §4 teacher pool, §9.2 seed 002). Every expected number is worked out in the
// comment next to it.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/config/check.h"
#include "verlpp/config/compose.h"
#include "verlpp/config/finding.h"
#include "verlpp/config/layout.h"
#include "verlpp/config/sections.h"
#include "verlpp/core/error.h"
#include "verlpp/model/model_config.h"

namespace verlpp::config {
namespace {

const std::string kSource = VERLPP_SOURCE_DIR;
const std::string kQwen235b = kSource + "/tests/fixtures/models/qwen3-235b-a22b-instruct-2507";
const std::string kQwen06b = kSource + "/tests/fixtures/models/qwen3-0.6b";
const std::string kWorldKey = "trainer.nnodes × trainer.n_gpus_per_node";
const std::string kActorMegatron = "actor_rollout_ref.actor.megatron";
const std::string kOverrideTc = kActorMegatron + ".override_transformer_config";

struct Planned {
  Config config;
  Layout layout;
  Findings findings;
};

// Composes `config_name` with `overrides`, binds it and plans the layout with the model shape read
// from actor_rollout_ref.model.path (none when unreadable).
Planned plan(const std::string& config_name, const std::vector<std::string>& overrides) {
  Planned out;
  out.config = bind_config(compose_config({std::nullopt, config_name, overrides}).root);
  out.layout =
      plan_layout(out.config, model::read_model_shape(out.config.model.path).shape, out.findings);
  return out;
}

std::vector<Finding> errors_with_key(const Findings& findings, const std::string& key) {
  std::vector<Finding> out;
  for (const auto& f : findings) {
    if (f.severity == Finding::Severity::error && f.key == key) out.push_back(f);
  }
  return out;
}

std::size_t error_count(const Findings& findings) {
  std::size_t n = 0;
  for (const auto& f : findings) n += f.severity == Finding::Severity::error;
  return n;
}

std::string describe(const Findings& findings) {
  std::string out;
  for (const auto& f : findings) {
    out += (f.severity == Finding::Severity::error ? "error " : "notice ") + f.key + ": " +
           f.message + "\n";
  }
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Seed 002 (verl PR #5908): Qwen3-235B-A22B on 16 × 16 devices, Megatron tp2 pp16 cp8 ep16 etp1,
// uneven pipeline 5 + ... + 5, vLLM rollout tp4 dp32 ep128.
std::vector<std::string> seed002(int first_stage = 5, int nnodes = 16) {
  return {
      "trainer.nnodes=" + std::to_string(nnodes),
      "trainer.n_gpus_per_node=16",
      "actor_rollout_ref.model.path=" + kQwen235b,
      "actor_rollout_ref.actor.megatron.tensor_model_parallel_size=2",
      "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=16",
      "actor_rollout_ref.actor.megatron.context_parallel_size=8",
      "actor_rollout_ref.actor.megatron.expert_model_parallel_size=16",
      "actor_rollout_ref.actor.megatron.expert_tensor_parallel_size=1",
      "+" + kOverrideTc + ".num_layers_in_first_pipeline_stage=" + std::to_string(first_stage),
      "+" + kOverrideTc + ".num_layers_in_last_pipeline_stage=5",
      "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1",
      "actor_rollout_ref.rollout.name=vllm",
      "actor_rollout_ref.rollout.tensor_model_parallel_size=4",
      "actor_rollout_ref.rollout.data_parallel_size=32",
      "actor_rollout_ref.rollout.expert_parallel_size=128",
      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=1",
  };
}

TEST(FormatStages, GroupsConsecutiveEqualStages) {
  EXPECT_EQ(format_stages({5, 6, 6, 6, 5}), "5 + 3×6 + 5");
}

TEST(FormatStages, AllEqual) { EXPECT_EQ(format_stages({4, 4, 4, 4}), "4×4"); }

TEST(FormatStages, SingleStage) { EXPECT_EQ(format_stages({7}), "7"); }

TEST(FormatStages, NoStages) { EXPECT_EQ(format_stages({}), ""); }

TEST(Seed002Layout, WorldIs256) {
  EXPECT_EQ(plan("ppo_megatron_trainer", seed002()).layout.world, 256);  // 16 × 16
}

TEST(Seed002Layout, DenseDataParallelIsOne) {
  const Planned p = plan("ppo_megatron_trainer", seed002());
  ASSERT_TRUE(p.layout.actor_megatron.has_value());
  EXPECT_EQ(p.layout.actor_megatron->dp, 1);  // 256 / (tp2 · pp16 · cp8 = 256)
  EXPECT_EQ(p.layout.actor_dp, 1);
}

TEST(Seed002Layout, ExpertDataParallelIsOne) {
  const Planned p = plan("ppo_megatron_trainer", seed002());
  ASSERT_TRUE(p.layout.actor_megatron.has_value());
  EXPECT_EQ(p.layout.actor_megatron->expert_dp, 1);  // 256 / (etp1 · ep16 · pp16 = 256)
}

TEST(Seed002Layout, ValidOnlyUnderParallelFolding) {
  const Planned p = plan("ppo_megatron_trainer", seed002());
  ASSERT_TRUE(p.layout.actor_megatron.has_value());
  EXPECT_TRUE(p.layout.actor_megatron->folding_valid);  // 256 % 256 == 0
  EXPECT_FALSE(p.layout.actor_megatron->legacy_valid);  // dense dp 1 % ep 16 != 0
}

TEST(Seed002Layout, UnevenPipelineStages) {
  const Planned p = plan("ppo_megatron_trainer", seed002());
  ASSERT_TRUE(p.layout.actor_megatron.has_value());
  // 94 layers - 5 - 5 = 84 over 16 - 2 = 14 middle stages: 6 each.
  std::vector<std::int64_t> expected = {5};
  expected.insert(expected.end(), 14, 6);
  expected.push_back(5);
  EXPECT_EQ(p.layout.actor_megatron->layers_per_stage, expected);
  EXPECT_EQ(format_stages(p.layout.actor_megatron->layers_per_stage), "5 + 14×6 + 5");
}

TEST(Seed002Layout, TwoRolloutReplicas) {
  const Planned p = plan("ppo_megatron_trainer", seed002());
  EXPECT_EQ(p.layout.rollout.per_replica, 128);  // tp4 · dp32 · pp1
  EXPECT_EQ(p.layout.rollout.replicas, 2);       // 256 / 128
}

TEST(Seed002Layout, NoErrors) {
  // Heads 64 % tp2 and % rollout tp4, KV heads 4 % 2 and % 4, experts 128 % ep16, rollout
  // ep 128 == 4 · 32: every rule holds.
  const Planned p = plan("ppo_megatron_trainer", seed002());
  EXPECT_EQ(error_count(p.findings), 0u) << describe(p.findings);
}

TEST(Seed002Layout, FirstStageFourLeavesIndivisibleLayers) {
  // 94 - 4 - 5 = 85 left-over layers over 14 stages: 85 % 14 = 1.
  const Planned p = plan("ppo_megatron_trainer", seed002(/*first_stage=*/4));
  const auto errors = errors_with_key(p.findings, kOverrideTc);
  ASSERT_EQ(errors.size(), 1u) << describe(p.findings);
  EXPECT_TRUE(contains(errors[0].message, "85")) << errors[0].message;
  EXPECT_TRUE(contains(errors[0].message, "14")) << errors[0].message;
  EXPECT_TRUE(p.layout.actor_megatron->layers_per_stage.empty());
}

TEST(Seed002Layout, EightNodesCannotHoldModelParallelGroup) {
  // 8 × 16 = 128 devices, but tp2 · pp16 · cp8 = 256 devices per model replica.
  const Planned p = plan("ppo_megatron_trainer", seed002(5, /*nnodes=*/8));
  const auto errors = errors_with_key(p.findings, kWorldKey);
  ASSERT_EQ(errors.size(), 1u) << describe(p.findings);
  EXPECT_TRUE(contains(errors[0].message, "128")) << errors[0].message;
  EXPECT_TRUE(contains(errors[0].message, "256")) << errors[0].message;
  EXPECT_EQ(p.layout.actor_megatron->dp, 0);
}

TEST(Seed002Layout, EightNodesAlsoBreakExpertFolding) {
  // etp1 · ep16 · pp16 = 256 does not divide 128 either.
  const Planned p = plan("ppo_megatron_trainer", seed002(5, /*nnodes=*/8));
  EXPECT_FALSE(p.layout.actor_megatron->folding_valid);
  EXPECT_EQ(errors_with_key(p.findings, kActorMegatron + ".expert_model_parallel_size").size(), 1u)
      << describe(p.findings);
}

TEST(MegatronLayout, TensorParallelMustDivideKvHeads) {
  // Qwen3-235B has 4 KV heads; Megatron needs num_query_groups % tp == 0, and 4 % 8 != 0.
  // tp8 · pp16 · cp2 = 256 keeps the world rule satisfied so only the head rule fires.
  std::vector<std::string> overrides = seed002();
  overrides.push_back("actor_rollout_ref.actor.megatron.tensor_model_parallel_size=8");
  overrides.push_back("actor_rollout_ref.actor.megatron.context_parallel_size=2");
  const Planned p = plan("ppo_megatron_trainer", overrides);
  const auto errors = errors_with_key(p.findings, kActorMegatron + ".tensor_model_parallel_size");
  ASSERT_EQ(errors.size(), 1u) << describe(p.findings);
  EXPECT_TRUE(contains(errors[0].message, "KV heads")) << errors[0].message;
  EXPECT_EQ(errors_with_key(p.findings, kWorldKey).size(), 0u);
}

TEST(MegatronLayout, EvenPipelineWithoutUnevenStages) {
  // Qwen3-0.6B: 28 layers over pp 4 = 7 per stage; world 8 / (tp1 · pp4 · cp1) = dp 2.
  const Planned p = plan("ppo_megatron_trainer",
                         {"actor_rollout_ref.model.path=" + kQwen06b,
                          "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=4",
                          "actor_rollout_ref.rollout.name=vllm"});
  ASSERT_TRUE(p.layout.actor_megatron.has_value());
  EXPECT_EQ(p.layout.actor_megatron->dp, 2);
  EXPECT_EQ(p.layout.actor_megatron->layers_per_stage, (std::vector<std::int64_t>{7, 7, 7, 7}));
}

TEST(MegatronLayout, LayersMustSplitEvenlyWithoutUnevenStages) {
  // 28 layers over pp 8: 28 % 8 = 4.
  const Planned p = plan("ppo_megatron_trainer",
                         {"actor_rollout_ref.model.path=" + kQwen06b,
                          "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size=8",
                          "actor_rollout_ref.rollout.name=vllm"});
  EXPECT_EQ(errors_with_key(p.findings, kActorMegatron + ".pipeline_model_parallel_size").size(),
            1u)
      << describe(p.findings);
}

TEST(FsdpLayout, UlyssesDividesDataParallel) {
  // 8 devices / Ulysses 2 = dp 4.
  const Planned p =
      plan("ppo_trainer", {"actor_rollout_ref.rollout.name=vllm",
                           "actor_rollout_ref.actor.fsdp_config.ulysses_sequence_parallel_size=2"});
  ASSERT_TRUE(p.layout.actor_fsdp.has_value());
  EXPECT_EQ(p.layout.actor_fsdp->dp, 4);
  EXPECT_EQ(p.layout.actor_dp, 4);
}

TEST(RolloutLayout, TensorParallelMustDivideAttentionHeads) {
  // Qwen3-0.6B: 16 heads, 8 KV heads. tp 32 on 4 × 8 = 32 devices: the pool holds one replica
  // (32 % 32 == 0) and vLLM can replicate the 8 KV heads (32 % 8 == 0), but 16 % 32 != 0.
  const Planned p =
      plan("ppo_trainer", {"actor_rollout_ref.model.path=" + kQwen06b, "trainer.nnodes=4",
                           "actor_rollout_ref.rollout.name=vllm",
                           "actor_rollout_ref.rollout.tensor_model_parallel_size=32"});
  const auto errors =
      errors_with_key(p.findings, "actor_rollout_ref.rollout.tensor_model_parallel_size");
  ASSERT_EQ(errors.size(), 1u) << describe(p.findings);
  EXPECT_TRUE(contains(errors[0].message, "16 attention heads")) << errors[0].message;
  EXPECT_EQ(p.layout.rollout.replicas, 1);
}

TEST(RolloutLayout, KvHeadsMayBeReplicated) {
  // Qwen3-235B: 64 heads, 4 KV heads; rollout tp 8 divides 64, and 8 % 4 == 0 lets vLLM
  // replicate KV heads. 256 / 8 = 32 replicas.
  std::vector<std::string> overrides = seed002();
  overrides.push_back("actor_rollout_ref.rollout.tensor_model_parallel_size=8");
  overrides.push_back("actor_rollout_ref.rollout.data_parallel_size=1");
  overrides.push_back("actor_rollout_ref.rollout.expert_parallel_size=1");
  const Planned p = plan("ppo_megatron_trainer", overrides);
  EXPECT_EQ(error_count(p.findings), 0u) << describe(p.findings);
  EXPECT_EQ(p.layout.rollout.replicas, 32);
}

TEST(RolloutLayout, PoolMustDivideIntoReplicas) {
  // 8 devices, tp 3: 8 % 3 = 2. No model shape (default path), so only the pool rule can fire.
  const Planned p = plan("ppo_trainer", {"actor_rollout_ref.rollout.name=vllm",
                                         "actor_rollout_ref.rollout.tensor_model_parallel_size=3"});
  const auto errors =
      errors_with_key(p.findings, "actor_rollout_ref.rollout.tensor_model_parallel_size");
  ASSERT_EQ(errors.size(), 1u) << describe(p.findings);
  EXPECT_TRUE(contains(errors[0].message, "8 devices")) << errors[0].message;
  EXPECT_EQ(p.layout.rollout.replicas, 0);
}

TEST(RolloutLayout, ExpertParallelMustEqualTpTimesDp) {
  // ep 16 != tp 4 · dp 32 = 128.
  std::vector<std::string> overrides = seed002();
  overrides.push_back("actor_rollout_ref.rollout.expert_parallel_size=16");
  const Planned p = plan("ppo_megatron_trainer", overrides);
  const auto errors = errors_with_key(p.findings, "actor_rollout_ref.rollout.expert_parallel_size");
  ASSERT_EQ(errors.size(), 1u) << describe(p.findings);
  EXPECT_TRUE(contains(errors[0].message, "128")) << errors[0].message;
}

const std::string kTeacher = "distillation.teacher_models.teacher_model";

std::vector<std::string> distillation(int teacher_tp) {
  return {
      "actor_rollout_ref.rollout.name=vllm",
      "distillation.enabled=True",
      "distillation.n_gpus_per_node=8",
      "distillation.nnodes=1",
      kTeacher + ".model_path=/models/teacher",
      kTeacher + ".inference.tensor_model_parallel_size=" + std::to_string(teacher_tp),
  };
}

TEST(TeacherLayout, SingleTeacherFillsPool) {
  // Pool 8 × 1 = 8 devices; per replica tp8 · dp1 · pp1 = 8: one replica.
  const Planned p = plan("ppo_trainer", distillation(8));
  ASSERT_EQ(p.layout.teachers.size(), 1u);
  EXPECT_EQ(p.layout.teachers[0].pool, 8);
  EXPECT_EQ(p.layout.teachers[0].per_replica, 8);
  EXPECT_EQ(p.layout.teachers[0].replicas, 1);
  EXPECT_EQ(error_count(p.findings), 0u) << describe(p.findings);
}

TEST(TeacherLayout, TeacherTensorParallelMustDividePool) {
  // 8 % 3 = 2.
  const Planned p = plan("ppo_trainer", distillation(3));
  EXPECT_EQ(errors_with_key(p.findings, kTeacher + ".inference.tensor_model_parallel_size").size(),
            1u)
      << describe(p.findings);
}

TEST(TeacherLayout, TeacherPoolNeedsNodes) {
  // distillation.nnodes defaults to 0: an empty pool.
  std::vector<std::string> overrides = distillation(8);
  overrides.push_back("distillation.nnodes=0");
  const Planned p = plan("ppo_trainer", overrides);
  EXPECT_EQ(
      errors_with_key(p.findings, "distillation.n_gpus_per_node × distillation.nnodes").size(), 1u)
      << describe(p.findings);
}

TEST(TeacherLayout, MaxModelLenBelowPromptPlusResponsePlusOne) {
  // prompt 1024 + response 2048 + 1 = 3073 > 3072.
  std::vector<std::string> overrides = distillation(8);
  overrides.push_back("data.max_prompt_length=1024");
  overrides.push_back("data.max_response_length=2048");
  overrides.push_back(kTeacher + ".inference.max_model_len=3072");
  const Planned p = plan("ppo_trainer", overrides);
  const auto errors = errors_with_key(p.findings, kTeacher + ".inference.max_model_len");
  ASSERT_EQ(errors.size(), 1u) << describe(p.findings);
  EXPECT_TRUE(contains(errors[0].message, "3073")) << errors[0].message;
}

TEST(TeacherLayout, MaxModelLenExactlyPromptPlusResponsePlusOne) {
  // 1024 + 2048 + 1 = 3073 <= 3073.
  std::vector<std::string> overrides = distillation(8);
  overrides.push_back("data.max_prompt_length=1024");
  overrides.push_back("data.max_response_length=2048");
  overrides.push_back(kTeacher + ".inference.max_model_len=3073");
  const Planned p = plan("ppo_trainer", overrides);
  EXPECT_EQ(errors_with_key(p.findings, kTeacher + ".inference.max_model_len").size(), 0u)
      << describe(p.findings);
}

// bt15: check passed what ppo refuses. topk above the student's vocabulary (Qwen3-0.6B's
// config.json: 151,936) and an empty key of a keyed teacher are errors at check time.
TEST(TeacherLayout, TopkAboveTheVocabularyAndAnEmptyKey) {
  std::vector<std::string> overrides = distillation(8);
  overrides.push_back("actor_rollout_ref.model.path=" + kQwen06b);
  overrides.push_back("distillation.distillation_loss.loss_mode=forward_kl_topk");
  overrides.push_back("distillation.distillation_loss.topk=151937");
  const auto topk = errors_with_key(plan("ppo_trainer", overrides).findings,
                                    "distillation.distillation_loss.topk");
  ASSERT_EQ(topk.size(), 1u);
  EXPECT_TRUE(contains(topk[0].message, "vocabulary size 151936")) << topk[0].message;
  overrides.back() = "distillation.distillation_loss.topk=151936";
  EXPECT_TRUE(errors_with_key(plan("ppo_trainer", overrides).findings,
                              "distillation.distillation_loss.topk")
                  .empty());
  std::vector<std::string> keyed = distillation(8);
  for (const std::string name : {"a", "b"}) {
    const std::string t = "+distillation.teacher_models." + name;
    keyed.push_back(t + ".key=" + (name == "a" ? "" : "gsm8k"));
    keyed.push_back(t + ".model_path=/models/" + name);
    keyed.push_back(t + ".num_replicas=1");
    keyed.push_back(t + ".inference.tensor_model_parallel_size=4");
  }
  const Planned p = plan("ppo_trainer", keyed);
  EXPECT_EQ(errors_with_key(p.findings, "distillation.teacher_models.a.key").size(), 1u)
      << describe(p.findings);
  EXPECT_TRUE(errors_with_key(p.findings, "distillation.teacher_models.b.key").empty());
}

// verl's Megatron engine sets moe_router_load_balancing_type=none; a user may ask for aux_loss.
TEST(MegatronMoeLoadBalancing, NoneByDefaultAuxLossWithItsCoefficient) {
  const Config plain = bind_config(
      compose_config(
          {std::nullopt, "ppo_megatron_trainer", {"actor_rollout_ref.rollout.name=vllm"}})
          .root);
  ASSERT_TRUE(plain.actor.engine.megatron);
  EXPECT_EQ(plain.actor.engine.megatron->moe_router_load_balancing_type, "none");
  EXPECT_FALSE(plain.actor.engine.megatron->moe_aux_loss_coeff);
  const Config aux =
      bind_config(compose_config({std::nullopt,
                                  "ppo_megatron_trainer",
                                  {"actor_rollout_ref.rollout.name=vllm",
                                   "+" + kOverrideTc + ".moe_router_load_balancing_type=aux_loss",
                                   "+" + kOverrideTc + ".moe_aux_loss_coeff=0.01"}})
                      .root);
  EXPECT_EQ(aux.actor.engine.megatron->moe_router_load_balancing_type, "aux_loss");
  EXPECT_EQ(aux.actor.engine.megatron->moe_aux_loss_coeff, 0.01);
}

TEST(MegatronMoeLoadBalancing, OtherBalancingTypesAreRefusedByName) {
  try {
    bind_config(
        compose_config({std::nullopt,
                        "ppo_megatron_trainer",
                        {"actor_rollout_ref.rollout.name=vllm",
                         "+" + kOverrideTc + ".moe_router_load_balancing_type=seq_aux_loss"}})
            .root);
    FAIL() << "seq_aux_loss accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kOverrideTc + ".moe_router_load_balancing_type: "
                                                       "'seq_aux_loss' is not supported by verlpp"),
              std::string::npos)
        << e.what();
  }
}

// The reference policy and the critic shard as the actor does, so their fsdp_size follows the
// actor's rule (4 ranks: 2 is hybrid sharding, two copies over two ranks each; 3 does not divide
// 4, gcd(3, 4) = 1 is the fix; 8 is the whole world, as verl reads it; 0 is refused); an engine the
// run does not have is not judged.
TEST(OtherFsdpEngines, RefAndCriticFsdpSizesFollowTheActorsRule) {
  const std::vector<std::string> base = {"actor_rollout_ref.rollout.name=vllm",
                                         "trainer.n_gpus_per_node=4"};
  const std::string ref_key = "actor_rollout_ref.ref.fsdp_config.fsdp_size";
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), base.begin(), base.end());
    return plan("ppo_trainer", extra).findings;
  };
  EXPECT_TRUE(
      errors_with_key(with({"actor_rollout_ref.actor.use_kl_loss=true", ref_key + "=2"}), ref_key)
          .empty());
  const auto uneven =
      errors_with_key(with({"actor_rollout_ref.actor.use_kl_loss=true", ref_key + "=3"}), ref_key);
  ASSERT_EQ(uneven.size(), 1u);
  EXPECT_EQ(uneven[0].fix, "actor_rollout_ref.ref.fsdp_config.fsdp_size=1");
  EXPECT_TRUE(
      errors_with_key(with({"actor_rollout_ref.actor.use_kl_loss=true", ref_key + "=1"}), ref_key)
          .empty());
  EXPECT_TRUE(errors_with_key(with({"actor_rollout_ref.actor.use_kl_loss=false",
                                    "algorithm.use_kl_in_reward=false", ref_key + "=2"}),
                              ref_key)
                  .empty());
  // verl's reading (distributed.md §2.6): at least the world shards over all ranks; 0 fails there.
  EXPECT_TRUE(
      errors_with_key(with({"actor_rollout_ref.actor.use_kl_loss=true", ref_key + "=8"}), ref_key)
          .empty());
  const auto zero =
      errors_with_key(with({"actor_rollout_ref.actor.use_kl_loss=true", ref_key + "=0"}), ref_key);
  ASSERT_EQ(zero.size(), 1u);
  EXPECT_EQ(zero[0].fix, "actor_rollout_ref.ref.fsdp_config.fsdp_size=-1");
  const std::string actor_key = "actor_rollout_ref.actor.fsdp_config.fsdp_size";
  EXPECT_TRUE(errors_with_key(with({actor_key + "=16"}), actor_key).empty());
  EXPECT_EQ(errors_with_key(with({actor_key + "=0"}), actor_key).size(), 1u);
  EXPECT_TRUE(errors_with_key(with({"algorithm.adv_estimator=gae", "critic.fsdp.fsdp_size=2"}),
                              "critic.fsdp.fsdp_size")
                  .empty());
  const auto critic = errors_with_key(
      with({"algorithm.adv_estimator=gae", "critic.fsdp.fsdp_size=3"}), "critic.fsdp.fsdp_size");
  ASSERT_EQ(critic.size(), 1u);
  EXPECT_EQ(critic[0].fix, "critic.fsdp.fsdp_size=1");
  // The critic's Ulysses size must divide the world (3 on 4 ranks: gcd 1 is the fix); 2 is trained
  // as sharded data parallelism, a notice.
  const std::string sp_key = "critic.ulysses_sequence_parallel_size";
  const auto sp3 = errors_with_key(with({"algorithm.adv_estimator=gae", sp_key + "=3"}), sp_key);
  ASSERT_EQ(sp3.size(), 1u);
  EXPECT_EQ(sp3[0].message, "ulysses sequence parallel size 3 does not divide the world size 4");
  EXPECT_EQ(sp3[0].fix, sp_key + "=1");
  const Findings sp2 = with({"algorithm.adv_estimator=gae", sp_key + "=2"});
  EXPECT_TRUE(errors_with_key(sp2, sp_key).empty());
  EXPECT_TRUE(std::any_of(sp2.begin(), sp2.end(), [&](const Finding& f) {
    return f.severity == Finding::Severity::notice && f.key == sp_key;
  }));
}

// A Megatron engine's offload keys are read (verlpp applies them to its sharded engine); the ref's
// param_offload follows the actor's by verl's interpolation.
TEST(MegatronOffload, ParamAndOptimizerOffloadAreRead) {
  const Config c = bind_config(compose_config({std::nullopt,
                                               "ppo_megatron_trainer",
                                               {"actor_rollout_ref.rollout.name=vllm",
                                                kActorMegatron + ".param_offload=true",
                                                kActorMegatron + ".optimizer_offload=true"}})
                                   .root);
  EXPECT_TRUE(c.actor.engine.megatron->param_offload);
  EXPECT_TRUE(c.actor.engine.megatron->optimizer_offload);
  EXPECT_TRUE(c.ref.engine.megatron->param_offload);
  EXPECT_FALSE(c.ref.engine.megatron->optimizer_offload);
}

// A Megatron layout with model parallelism is trained as sharded data parallelism: a notice that
// `ppo` prints too (bt12: ppo said nothing about pp 2 running as dp 2).
TEST(ShardedLayoutNotice, ModelParallelSizesAreNoted) {
  auto notices = [](const std::string& tp) {
    ConfigRequest request;
    request.config_name = "ppo_megatron_trainer";
    request.overrides = {"actor_rollout_ref.rollout.name=vllm", "trainer.n_gpus_per_node=2",
                         kActorMegatron + ".tensor_model_parallel_size=" + tp};
    std::vector<std::string> out;
    for (const auto& f : check_config(request).findings) {
      if (f.severity == Finding::Severity::notice && f.key == kActorMegatron) {
        out.push_back(f.message);
      }
    }
    return out;
  };
  const auto tp2 = notices("2");
  ASSERT_EQ(tp2.size(), 1u);
  EXPECT_EQ(tp2[0],
            "verlpp trains this as sharded data parallelism (FSDP-style) over all ranks (dp 2): "
            "no tensor, pipeline, context, expert or sequence parallelism yet; the layout `check` "
            "prints is verl's, checked");
  EXPECT_TRUE(notices("1").empty());
}

}  // namespace
}  // namespace verlpp::config
