// Keys a user sets that no verlpp binder reads are refused when their value differs from verl's
// default (trainer.log_val_generations has no verlpp counterpart yet): `verlpp check` and every run
// name them instead of training without them.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "verlpp/config/check.h"

namespace verlpp::config {
namespace {

// A verl key verlpp does not read (verl logs validation samples to wandb and the like).
const std::string kUnread = "trainer.log_val_generations";

const std::string kRolloutName = "actor_rollout_ref.rollout.name=vllm";

std::vector<std::string> error_keys(std::vector<std::string> overrides) {
  ConfigRequest request;
  request.overrides = std::move(overrides);
  request.overrides.push_back(kRolloutName);
  std::vector<std::string> keys;
  for (const auto& f : check_config(request).findings) {
    if (f.severity == Finding::Severity::error && f.message.starts_with("verlpp does not")) {
      keys.push_back(f.key);
    }
  }
  return keys;
}

TEST(UnreadKeys, AnUnreadKeySetAwayFromItsDefaultIsRefused) {
  EXPECT_EQ(error_keys({kUnread + "=10"}), std::vector<std::string>{kUnread});
  ConfigRequest request;
  request.overrides = {kUnread + "=10", kRolloutName};
  const CheckReport report = check_config(request);
  EXPECT_FALSE(report.valid());
  EXPECT_NE(format_report(report).find(
                kUnread + ": verlpp does not implement this setting: an integer 10 would have no "
                          "effect (verl's default: an integer 0)"),
            std::string::npos)
      << format_report(report);
}

// A key whose value reaches a read key through ${...} is read there (bt13: verl-recipe's entropy
// config keeps reward_model.overlong_buffer.* and interpolates them into the reward's
// overlong_buffer_cfg); alone it is refused.
TEST(UnreadKeys, AKeyReachingAReadKeyByInterpolationIsRead) {
  EXPECT_EQ(error_keys({"+custom.buffer.len=8"}), std::vector<std::string>{"custom.buffer.len"});
  EXPECT_TRUE(error_keys({"+custom.buffer.len=8",
                          "++reward.reward_kwargs.overlong_buffer_cfg.len=${custom.buffer.len}"})
                  .empty());
  // Into a legacy key that moves to reward.* (the recipe's own layout).
  EXPECT_TRUE(error_keys({"+custom.buffer={len:8}",
                          "+reward_model.reward_kwargs={overlong_buffer_cfg:${custom.buffer}}"})
                  .empty());
  EXPECT_TRUE(error_keys({"+custom.buffer={len:8}", "+custom.link={len:${custom.buffer.len}}",
                          "++reward.reward_kwargs.overlong_buffer_cfg.len=${custom.link.len}"})
                  .empty());
}

// A Python reward file is refused by check (verlpp loads shared libraries), a library path is not.
TEST(CheckReward, PythonRewardFileIsRefused) {
  const std::string key = "reward.custom_reward_function.path";
  for (const auto& [path, refused] :
       {std::pair{"my_reward.py", true}, {"libmy_reward.so", false}}) {
    ConfigRequest request;
    request.overrides = {key + "=" + path, kRolloutName};
    const Findings findings = check_config(request).findings;
    EXPECT_EQ(std::any_of(findings.begin(), findings.end(),
                          [&](const Finding& f) {
                            return f.severity == Finding::Severity::error && f.key == key;
                          }),
              refused)
        << path;
  }
}

TEST(UnreadKeys, DefaultValuesReadKeysAndIgnoredKeysPass) {
  EXPECT_TRUE(error_keys({kUnread + "=0", "algorithm.rollout_correction.rollout_is=token",
                          "data.train_batch_size=64", "+ray_kwargs.ray_init.num_cpus=4"})
                  .empty());
}

// A map merged into a section names the unread entries that differ, not the section: async_save
// (verlpp saves synchronously); save_contents is read (verl's items, validate.cpp) and strict
// keeps its default.
TEST(UnreadKeys, AMapOverASectionNamesTheEntriesThatDiffer) {
  EXPECT_EQ(error_keys({"actor_rollout_ref.actor.checkpoint={save_contents:[model,optimizer,extra,"
                        "hf_model],async_save:true,strict:true}"}),
            (std::vector<std::string>{"actor_rollout_ref.actor.checkpoint.async_save"}));
}

// Older scripts' top-level reward blocks move to reward.* as verl's migrate_legacy_reward_impl
// moves them (break-test round bt6: all three were refused as settings without effect).
TEST(UnreadKeys, LegacyRewardKeysMoveToTheRewardSection) {
  EXPECT_TRUE(error_keys({"reward_model.enable=False", "reward_model.reward_manager=dapo",
                          "custom_reward_function.path=/tmp/libr.so"})
                  .empty());
  ConfigRequest request;
  request.overrides = {"reward_model.reward_manager=dapo", "custom_reward_function.path=/tmp/r.so",
                       kRolloutName};
  const CheckReport report = check_config(request);
  EXPECT_EQ(report.config.reward_manager, "dapo");
  const Node* path = find_path(report.composed.root, "reward.custom_reward_function.path");
  ASSERT_NE(path, nullptr);
  EXPECT_EQ(path->as_string(), "/tmp/r.so");
  // verl does not move reward_model.model.external_lib: without effect there too.
  EXPECT_EQ(error_keys({"reward_model.model.external_lib=my_lib"}),
            std::vector<std::string>{"reward_model.model.external_lib"});
}

// Hydra's own settings (verl scripts' hydra.run.dir) are listed as ignored, not refused.
TEST(UnreadKeys, HydraSettingsAreIgnored) {
  ConfigRequest request;
  request.overrides = {"hydra.run.dir=outputs/x", kRolloutName};
  const CheckReport report = check_config(request);
  EXPECT_NE(std::find(report.ignored.begin(), report.ignored.end(), "hydra.run.dir"),
            report.ignored.end());
  EXPECT_TRUE(error_keys({"hydra.job.chdir=false"}).empty());
}

// The reward section is bound by reward/reward_settings.cpp from the tree; its keys still count as
// read (a break-test found every custom reward library refused).
TEST(UnreadKeys, RewardSettingsAreRead) {
  EXPECT_TRUE(
      error_keys({"reward.custom_reward_function.path=/tmp/libr.so",
                  "reward.custom_reward_function.name=score", "reward.reward_manager.name=dapo",
                  "+reward.reward_kwargs.verl_compat=true",
                  "+reward.reward_kwargs.overlong_buffer_cfg.enable=true",
                  "+reward.reward_kwargs.max_resp_len=64"})
          .empty());
  EXPECT_EQ(error_keys({"+reward.reward_kwargs.my_knob=1"}),
            std::vector<std::string>{"reward.reward_kwargs.my_knob"});
}

// Ignored keys still take only values of their default's kind, as verl's typed configs do: a word
// where a boolean or an integer belongs is an error naming the key; other values are accepted.
TEST(UnreadKeys, IgnoredKeysTakeValuesOfTheirDefaultsKind) {
  const auto mismatches = [](std::vector<std::string> overrides) {
    ConfigRequest request;
    request.overrides = std::move(overrides);
    request.overrides.push_back(kRolloutName);
    std::vector<std::string> messages;
    for (const auto& f : check_config(request).findings) {
      if (f.severity == Finding::Severity::error && f.message.starts_with("verlpp ignores")) {
        messages.push_back(f.key + ": " + f.message);
      }
    }
    return messages;
  };
  EXPECT_EQ(mismatches({"data.use_shm=abc", "data.dataloader_num_workers=1.5",
                        "actor_rollout_ref.rollout.layered_summon=[1]"}),
            (std::vector<std::string>{
                "data.use_shm: verlpp ignores this setting, but verl would refuse its value: got "
                "a string 'abc' where verl's default is a boolean false",
                "data.dataloader_num_workers: verlpp ignores this setting, but verl would refuse "
                "its value: got a number 1.500000 where verl's default is an integer 8",
                "actor_rollout_ref.rollout.layered_summon: verlpp ignores this setting, but verl "
                "would refuse its value: got a list where verl's default is a boolean false"}));
  // torch's DataLoader: "num_workers option should be non-negative".
  EXPECT_EQ(mismatches({"data.dataloader_num_workers=-3"}),
            std::vector<std::string>{
                "data.dataloader_num_workers: verlpp ignores this setting, but verl would refuse "
                "its value: got an integer -3 where verl needs a worker count >= 0 (torch's "
                "DataLoader and verl's pools refuse a negative one)"});
  EXPECT_TRUE(mismatches({"data.use_shm=true", "data.dataloader_num_workers=2",
                          "data.dataloader_num_workers=0", "data.dataloader_num_workers=null",
                          "+ray_kwargs.ray_init.num_cpus=4",
                          "actor_rollout_ref.rollout.cudagraph_capture_sizes=[1,2,4]"})
                  .empty());
}

TEST(UnreadKeys, AKeyAddedWithPlusThatNothingReadsIsRefused) {
  EXPECT_EQ(error_keys({"+algorithm.my_new_knob=3"}),
            std::vector<std::string>{"algorithm.my_new_knob"});
}

// The engines' own implementation settings (seed 002's Megatron knobs, the FSDP determinism and
// offload policy) have no counterpart in verlpp's engine: listed as ignored, not refused.
TEST(UnreadKeys, EngineSettingsAreListedAsIgnored) {
  const std::string knob = "actor_rollout_ref.actor.megatron.override_transformer_config.swiglu";
  const std::string fsdp = "actor_rollout_ref.actor.fsdp_config.full_determinism";
  const auto ignored_of = [](const std::string& config_name, std::vector<std::string> overrides) {
    ConfigRequest request;
    request.config_name = config_name;
    request.overrides = std::move(overrides);
    request.overrides.push_back(kRolloutName);
    const CheckReport report = check_config(request);
    for (const auto& f : report.findings)
      EXPECT_EQ(f.message.find("verlpp does not"), std::string::npos) << f.key;
    return report.ignored;
  };
  const auto fsdp_ignored = ignored_of("ppo_trainer", {fsdp + "=true"});
  EXPECT_NE(std::find(fsdp_ignored.begin(), fsdp_ignored.end(), fsdp), fsdp_ignored.end());
  const auto megatron_ignored = ignored_of("ppo_megatron_trainer", {"+" + knob + "=true"});
  EXPECT_NE(std::find(megatron_ignored.begin(), megatron_ignored.end(), knob),
            megatron_ignored.end());
}

const std::string kQwen3 = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/models/qwen3-0.6b";

// check's errors ("key: message") for a 1,024-token prompt and `response` tokens on Qwen3-0.6B's
// config.json, with `extra` overrides.
std::vector<std::string> length_errors(const std::string& response,
                                       std::vector<std::string> extra = {}) {
  ConfigRequest request;
  request.overrides = {"actor_rollout_ref.model.path=" + kQwen3, kRolloutName,
                       "data.max_prompt_length=1024", "data.max_response_length=" + response};
  request.overrides.insert(request.overrides.end(), extra.begin(), extra.end());
  std::vector<std::string> out;
  for (const auto& f : check_config(request).findings) {
    if (f.severity == Finding::Severity::error) out.push_back(f.key + ": " + f.message);
  }
  return out;
}

long count_containing(const std::vector<std::string>& errors, const std::string& part) {
  return std::count_if(errors.begin(), errors.end(),
                       [&](const std::string& e) { return e.find(part) != std::string::npos; });
}

// Qwen3-0.6B's config.json has max_position_embeddings 40960: prompt 1,024 + response 39,936 fits
// exactly, one token more does not (vLLM refuses a max_model_len above it).
TEST(ModelLength, PromptPlusResponseWithinMaxPositionEmbeddings) {
  for (const auto& e : length_errors("39936"))
    EXPECT_EQ(e.find("max_position_embeddings"), std::string::npos) << e;
  EXPECT_EQ(count_containing(length_errors("39937"),
                             "prompt 1024 + response 39937 = 40961 tokens, but the model holds "
                             "40960 positions"),
            1);
}

// verl's DAPO recipes raise the positions with
// `+actor_rollout_ref.model.override_config.max_position_embeddings=...` (verl applies it to the
// model's config, which its rollout's length check reads): read, not refused as unread, and the
// length rule holds the overridden value; lowering it works the same way.
TEST(ModelLength, OverrideConfigSetsMaxPositionEmbeddings) {
  const std::string key = "+actor_rollout_ref.model.override_config.max_position_embeddings=";
  for (const auto& e : length_errors("39937", {key + "40961"})) {
    EXPECT_EQ(e.find("max_position_embeddings"), std::string::npos) << e;
    EXPECT_EQ(e.find("override_config"), std::string::npos) << e;
  }
  EXPECT_EQ(count_containing(length_errors("2048", {key + "3000"}),
                             "prompt 1024 + response 2048 = 3072 tokens, but the model holds "
                             "3000 positions"),
            1);
  // A field the model refuses names the key its config came from.
  EXPECT_EQ(count_containing(length_errors("2048", {"+actor_rollout_ref.model.override_config."
                                                    "attention_dropout=0.1"}),
                             "actor_rollout_ref.model.path: " + kQwen3 +
                                 "/config.json with override_config: 'attention_dropout' is 0.1"),
            1);
}

// Findings ("key: message", errors and notices) for Qwen3-0.6B's config.json with `extra`.
std::vector<std::string> findings_with(std::vector<std::string> extra, Finding::Severity severity) {
  ConfigRequest request;
  request.overrides = {"actor_rollout_ref.model.path=" + kQwen3, kRolloutName};
  request.overrides.insert(request.overrides.end(), extra.begin(), extra.end());
  std::vector<std::string> out;
  for (const auto& f : check_config(request).findings) {
    if (f.severity == severity) out.push_back(f.key + ": " + f.message);
  }
  return out;
}

// bt14: overrides the model does not read were accepted without a word; verl's Megatron form
// (override_config.model_config.*) was applied as a field named model_config; a critic override
// the run refuses passed check.
TEST(OverrideConfig, FieldsWithoutEffectAreRefusedAndModelConfigIsTheMap) {
  const std::string key = "actor_rollout_ref.model.override_config.";
  const auto errors = findings_with({"+" + key + "foo_bar=1"}, Finding::Severity::error);
  EXPECT_EQ(count_containing(errors, key + "foo_bar: verlpp's model does not read this "
                                           "config.json field"),
            1);
  EXPECT_EQ(count_containing(errors, "verlpp does not implement"), 0);  // not twice
  EXPECT_EQ(count_containing(
                findings_with({"+" + key + "attn_implementation=sdpa"}, Finding::Severity::notice),
                key + "attn_implementation: accepted but ignored"),
            1);
  EXPECT_EQ(count_containing(length_errors("2048", {"+" + key +
                                                    "model_config.max_position_"
                                                    "embeddings=3000"}),
                             "but the model holds 3000 positions"),
            1);
  EXPECT_EQ(count_containing(findings_with({"+" + key + "text_config.num_hidden_layers=7"},
                                           Finding::Severity::error),
                             "override_config.text_config: the config has no field "
                             "'text_config'"),
            1);
  const auto critic = findings_with({"algorithm.adv_estimator=gae", "critic.model.path=" + kQwen3,
                                     "+critic.model.override_config.attention_dropout=0.1"},
                                    Finding::Severity::error);
  EXPECT_EQ(count_containing(critic, "critic.model.path: " + kQwen3 +
                                         "/config.json with override_config: "
                                         "'attention_dropout' is 0.1"),
            1);
}

// The fix check prints for prompt + response above the positions resolves it when applied, also
// where the prompt alone fills them (bt20: a fix of max_response_length=1 that changed nothing).
TEST(ModelLength, FixAppliedPasses) {
  const std::string tiny = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/qwen3_tied";
  for (const std::string prompt : {"200", "256", "4096"}) {
    ConfigRequest request;
    request.overrides = {"actor_rollout_ref.model.path=" + tiny, kRolloutName,
                         "data.max_prompt_length=" + prompt, "data.max_response_length=128"};
    std::string fix;
    for (const auto& f : check_config(request).findings) {
      if (f.key == "data.max_prompt_length + data.max_response_length") fix = f.fix;
    }
    ASSERT_FALSE(fix.empty()) << "prompt " << prompt;
    std::istringstream words(fix);
    for (std::string word; words >> word;) request.overrides.push_back(word);
    for (const auto& f : check_config(request).findings) {
      EXPECT_NE(f.key, "data.max_prompt_length + data.max_response_length")
          << "prompt " << prompt << " after " << fix << ": " << f.message;
    }
  }
}

// A data file not on this machine is a notice naming it; a present file and a URL are not (bt20:
// check said nothing, the run stopped at start-up).
TEST(DataFiles, AbsentLocalFileIsANotice) {
  const std::string present = std::string(VERLPP_SOURCE_DIR) + "/README.md";
  ConfigRequest request;
  request.overrides = {"actor_rollout_ref.model.path=" + kQwen3, kRolloutName,
                       "data.train_files=[" + present + ",/nonexistent/train.parquet]",
                       "data.val_files=hdfs://cluster/test.parquet"};
  std::vector<std::string> notes;
  for (const auto& f : check_config(request).findings) {
    if (f.key == "data.train_files" || f.key == "data.val_files") {
      notes.push_back(f.key + ": " + f.message);
    }
  }
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "data.train_files: /nonexistent/train.parquet is not on this machine (the run reads "
            "it at start-up)");
}

// hf_config_path: the config comes from there, the weights from path (verl's HFModelConfig).
TEST(ModelLength, HfConfigPathIsTheConfigRead) {
  const std::string tiny = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/model/qwen3_tied";
  const auto errors = length_errors("39936", {"+actor_rollout_ref.model.hf_config_path=" + tiny});
  EXPECT_EQ(count_containing(errors,
                             "but the model holds 256 positions (max_position_embeddings "
                             "in " +
                                 tiny + "/config.json)"),
            1);
}

}  // namespace
}  // namespace verlpp::config
