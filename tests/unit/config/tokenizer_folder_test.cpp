// config/tokenizer_folder.h: `check` loads the run's tokenizer as `ppo` does. The Qwen3 fixture
// tokenizer's ids are 0..151668 (its tokenizer.json: a vocabulary of 151,643 ids and added tokens
// up to "</think>" at 151668); the messages are written out by hand.
#include "verlpp/config/tokenizer_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/temp_dir.h"

namespace verlpp::config {
namespace {

namespace fs = std::filesystem;

const std::string kQwen3 = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/tokenizers/qwen3";
const std::string kKey = "actor_rollout_ref.model.path";

Findings check(const std::string& dir, std::optional<std::int64_t> vocab = std::nullopt) {
  Findings out;
  std::vector<VocabReader> readers;
  if (vocab) readers.push_back({"the model", *vocab});
  check_tokenizer_folder(kKey, dir, readers, out);
  return out;
}

// A copy of the Qwen3 tokenizer folder in `dir`/NAME whose tokenizer.json is `tokenizer_json`
// (a file's text), or the fixture's own when empty.
std::string tokenizer_copy(const testing::TempDir& dir, const std::string& name,
                           const std::string& tokenizer_json = "") {
  fs::create_directories(dir.path(name));
  fs::copy_file(kQwen3 + "/tokenizer_config.json", dir.path(name + "/tokenizer_config.json"));
  if (tokenizer_json.empty()) {
    fs::copy_file(kQwen3 + "/tokenizer.json", dir.path(name + "/tokenizer.json"));
  } else {
    dir.file(name + "/tokenizer.json", tokenizer_json);
  }
  return dir.path(name);
}

TEST(TokenizerFolder, TheRunsTokenizerLoadsWithoutFindings) {
  EXPECT_TRUE(check(kQwen3).empty());
  EXPECT_TRUE(check(kQwen3, 151669).empty());
  EXPECT_TRUE(check(kQwen3, 151936).empty());  // Qwen3's padded embedding
}

TEST(TokenizerFolder, AnAbsentTokenizerIsANoticeNotAnError) {
  const testing::TempDir dir;
  dir.file("config.json", "{}");  // a folder of config.json only, as tests/fixtures/models/*
  for (const std::string& folder : {dir.path("hub-id"), dir.root().string()}) {
    const Findings f = check(folder);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].severity, Finding::Severity::notice);
    EXPECT_EQ(f[0].message, folder +
                                "/tokenizer.json is not on this machine: the tokenizer is "
                                "not checked (the run loads it from there)");
  }
}

// bt14: a folder with a model's weights but no tokenizer.json failed in the run, after a notice.
TEST(TokenizerFolder, AModelFolderWithoutTokenizerIsAnError) {
  const testing::TempDir dir;
  dir.file("config.json", "{}");
  dir.file("model.safetensors", "");
  const Findings f = check(dir.root().string());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Finding::Severity::error);
  EXPECT_EQ(f[0].message, dir.root().string() +
                              " has no tokenizer.json (the run loads the tokenizer from there)");
  EXPECT_EQ(f[0].fix, "set actor_rollout_ref.model.tokenizer_path to the model's tokenizer folder");
}

TEST(TokenizerFolder, ABrokenTokenizerIsAnErrorNamingTheFile) {
  const testing::TempDir dir;
  const std::string truncated = tokenizer_copy(dir, "truncated", R"({"model": {"type": "BPE", )");
  const std::string wordpiece =
      tokenizer_copy(dir, "wordpiece", R"({"model": {"type": "WordPiece", "vocab": {}}})");
  const std::string device = tokenizer_copy(dir, "device", "x");
  fs::remove(device + "/tokenizer.json");
  fs::create_symlink("/dev/null", device + "/tokenizer.json");
  const std::pair<std::string, std::string> cases[] = {
      {truncated, truncated + "/tokenizer.json: not valid JSON ("},
      {wordpiece, "model type 'WordPiece' is not supported (supported: BPE)"},
      {device, device + "/tokenizer.json: tokenizer file is not a regular file (a device, pipe "
                        "or socket)"}};
  for (const auto& [folder, expected] : cases) {
    const Findings f = check(folder);
    ASSERT_EQ(f.size(), 1u) << folder;
    EXPECT_EQ(f[0].severity, Finding::Severity::error);
    EXPECT_EQ(f[0].key, kKey);
    EXPECT_NE(f[0].message.find(expected), std::string::npos) << f[0].message;
    EXPECT_EQ(f[0].fix, "fix or replace the tokenizer files of " + folder);
  }
}

TEST(TokenizerFolder, ABrokenChatTemplateIsAnError) {
  const testing::TempDir dir;
  const std::string folder = tokenizer_copy(dir, "template");
  fs::remove(folder + "/tokenizer_config.json");
  dir.file("template/tokenizer_config.json", R"({"chat_template": "{% for m in messages %}"})");
  const Findings f = check(folder);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Finding::Severity::error);
  EXPECT_NE(f[0].message.find("tokenizer_config.json"), std::string::npos) << f[0].message;
}

TEST(TokenizerFolder, IdsBeyondTheModelsVocabularyAreAnError) {
  const Findings f = check(kQwen3, 151668);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Finding::Severity::error);
  EXPECT_EQ(f[0].message, "the tokenizer of " + kQwen3 +
                              " has ids up to 151668, but the model's config.json vocab_size is "
                              "151668: the tokenizer and the model do not match");
  // Each model that embeds the ids is judged (bt12: a critic of 1,000 tokens crashed the run).
  Findings both;
  check_tokenizer_folder(kKey, kQwen3, {{"the model", 151936}, {"the critic", 1000}}, both);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NE(both[0].message.find("the critic's config.json vocab_size is 1000"), std::string::npos)
      << both[0].message;
}

TEST(TokenizerFolder, ACheckpointFolderIsLeftToTheModelFolderCheck) {
  const testing::TempDir dir;
  fs::create_directories(dir.path("global_step_2/actor/huggingface"));
  dir.file("global_step_2/actor/huggingface/config.json", "{}");
  EXPECT_TRUE(check(dir.path("global_step_2")).empty());
}

}  // namespace
}  // namespace verlpp::config
