#include "verlpp/trainer/train_checkpoint.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {

namespace fs = std::filesystem;

model::ModelConfig tiny_config(std::int64_t hidden = 16) {
  model::ModelConfig c;
  c.architecture = model::Architecture::qwen3;
  c.vocab_size = 11;
  c.hidden_size = hidden;
  c.intermediate_size = 24;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 2;
  c.num_key_value_heads = 1;
  c.head_dim = 8;
  c.max_position_embeddings = 64;
  c.qk_norm = true;
  c.tie_word_embeddings = true;
  return c;
}

struct Trainee {
  model::CausalLM lm;
  engine::Optimizer optimizer;
};

std::vector<at::Tensor> parameters_of(const model::CausalLM& lm) {
  std::vector<at::Tensor> out;
  for (const auto& [name, p] : lm.named_parameters()) out.push_back(p);
  return out;
}

Trainee make(std::uint64_t seed, std::int64_t hidden = 16) {
  auto lm = model::CausalLM::random_init(tiny_config(hidden), seed, 0.2, at::kFloat);
  lm.set_requires_grad(true);
  engine::AdamWConfig config;
  config.schedule.lr = 0.05;
  config.schedule.lr_scheduler_type = "cosine";
  auto params = parameters_of(lm);
  return {std::move(lm), engine::Optimizer(params, config, 10)};
}

// One optimizer step on a fixed next-token loss.
void train_step(Trainee& t) {
  const at::Tensor ids = at::tensor({1, 4, 2, 7, 3, 9}, at::kLong);
  const at::Tensor positions = at::arange(6, at::kLong);
  const at::Tensor cu = at::tensor({0, 6}, at::kInt);
  const at::Tensor logits = t.lm.logits(t.lm.forward_packed(ids, positions, cu));
  at::cross_entropy_loss(logits.slice(0, 0, 5), ids.slice(0, 1)).backward();
  t.optimizer.step();
  t.optimizer.zero_grad();
  t.optimizer.advance_lr();
}

void expect_same_weights(const model::CausalLM& a, const model::CausalLM& b) {
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(at::equal(pa[i].second, pb[i].second)) << pa[i].first;
  }
}

class TrainCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("verlpp_train_ckpt_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(TrainCheckpoint, RoundTripContinuesExactlyLikeTheOriginal) {
  Trainee original = make(1);
  train_step(original);
  train_step(original);
  save_model_state(dir_ / "actor", original.lm, original.optimizer, {}, {}, nullptr);
  EXPECT_TRUE(fs::exists(dir_ / "actor/huggingface/config.json"));
  EXPECT_TRUE(fs::exists(dir_ / "actor/huggingface/model.safetensors"));
  EXPECT_TRUE(fs::exists(dir_ / "actor/optim_world_size_1_rank_0.safetensors"));

  Trainee restored = make(2);  // other weights, fresh moments and schedule
  load_model_state(dir_ / "actor", restored.lm, restored.optimizer, false);
  expect_same_weights(original.lm, restored.lm);
  EXPECT_DOUBLE_EQ(restored.optimizer.lr(), original.optimizer.lr());
  // Moments and step counts restored: the next update is bit-identical.
  train_step(original);
  train_step(restored);
  expect_same_weights(original.lm, restored.lm);
}

TEST_F(TrainCheckpoint, CopiesTokenizerFilesIntoHuggingfaceFolder) {
  const fs::path tok = dir_ / "tok";
  fs::create_directories(tok);
  std::ofstream(tok / "tokenizer.json") << "{}";
  std::ofstream(tok / "tokenizer_config.json") << "{}";
  Trainee t = make(1);
  save_model_state(dir_ / "actor", t.lm, t.optimizer, {tok.string(), std::nullopt}, {}, nullptr);
  EXPECT_TRUE(fs::exists(dir_ / "actor/huggingface/tokenizer.json"));
  EXPECT_TRUE(fs::exists(dir_ / "actor/huggingface/tokenizer_config.json"));
  EXPECT_THROW(copy_tokenizer_files(dir_ / "actor", dir_), Error);  // no tokenizer files there
}

// model.custom_chat_template: the run's tokenizer renders with it, and the checkpoint's
// tokenizer_config.json carries it (a chat_template.jinja would win over it in transformers).
TEST_F(TrainCheckpoint, ACustomChatTemplateIsUsedAndSaved) {
  const fs::path tok = dir_ / "tok";
  fs::create_directories(tok);
  std::ofstream(tok / "tokenizer.json") << "{}";
  std::ofstream(tok / "tokenizer_config.json") << R"({"eos_token": "<e>", "chat_template": "old"})";
  std::ofstream(tok / "chat_template.jinja") << "old";
  fs::create_directories(dir_ / "hf");
  save_tokenizer({tok.string(), "{{ messages[0].content }}!"}, dir_ / "hf");
  std::ifstream in(dir_ / "hf/tokenizer_config.json");
  const auto config = nlohmann::json::parse(in);
  EXPECT_EQ(config.at("eos_token"), "<e>");
  EXPECT_EQ(config.at("chat_template"), "{{ messages[0].content }}!");
  EXPECT_FALSE(fs::exists(dir_ / "hf/chat_template.jinja"));
  EXPECT_TRUE(fs::exists(tok / "chat_template.jinja"));  // the source is left alone

  const std::string qwen3 = std::string(VERLPP_SOURCE_DIR) + "/tests/fixtures/tokenizers/qwen3";
  const tokenizer::Tokenizer custom = load_tokenizer({qwen3, "{{ messages[0].content }}!"});
  const auto chat = tokenizer::OrderedJson::array({{{"role", "user"}, {"content", "hi"}}});
  EXPECT_EQ(custom.apply_chat_template(chat), "hi!");
  EXPECT_NE(load_tokenizer({qwen3, std::nullopt}).apply_chat_template(chat), "hi!");
  EXPECT_THROW(load_tokenizer({qwen3, "{% if %}"}), Error);
}

TEST_F(TrainCheckpoint, AnotherModelsCheckpointNamesTheDifferingField) {
  Trainee other = make(1, /*hidden=*/32);
  save_model_state(dir_ / "actor", other.lm, other.optimizer, {}, {}, nullptr);
  Trainee t = make(1);
  try {
    load_model_state(dir_ / "actor", t.lm, t.optimizer, false);
    FAIL() << "expected verlpp::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("another model"), std::string::npos) << what;
    EXPECT_NE(what.find("hidden_size is 32 in the checkpoint but 16"), std::string::npos) << what;
  }
}

TEST_F(TrainCheckpoint, MissingFilesAreNamed) {
  Trainee t = make(1);
  save_model_state(dir_ / "actor", t.lm, t.optimizer, {}, {}, nullptr);
  for (const char* file : {"optim_world_size_1_rank_0.safetensors", "huggingface/model.safetensors",
                           "huggingface/config.json"}) {
    fs::remove(dir_ / "actor" / file);
    try {
      load_model_state(dir_ / "actor", t.lm, t.optimizer, false);
      FAIL() << "expected verlpp::Error for a missing " << file;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find((dir_ / "actor" / file).string()), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(TrainCheckpoint, CorruptOptimizerStateIsAnError) {
  Trainee t = make(1);
  save_model_state(dir_ / "actor", t.lm, t.optimizer, {}, {}, nullptr);
  std::ofstream(dir_ / "actor/optim_world_size_1_rank_0.safetensors", std::ios::trunc)
      << "not an archive";
  EXPECT_THROW(load_model_state(dir_ / "actor", t.lm, t.optimizer, false), Error);
}

TEST_F(TrainCheckpoint, TrainerStateRoundTripAndErrors) {
  const nlohmann::json state = {{"global_step", 7}, {"rng", "00ff"}, {"kl_coef", 0.001}};
  write_trainer_state(dir_, state);
  EXPECT_EQ(read_trainer_state(dir_), state);
  std::ofstream(dir_ / "trainer_state.json", std::ios::trunc) << "[1, 2]";
  EXPECT_THROW(read_trainer_state(dir_), Error);
  std::ofstream(dir_ / "trainer_state.json", std::ios::trunc) << "{broken";
  EXPECT_THROW(read_trainer_state(dir_), Error);
  fs::remove(dir_ / "trainer_state.json");
  try {
    read_trainer_state(dir_);
    FAIL() << "expected verlpp::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer_state.json"), std::string::npos) << e.what();
  }
  // A folder (or a link loop) in its place is named as such, not "missing" or an internal error
  // (bt11).
  fs::create_directory(dir_ / "trainer_state.json");
  try {
    read_trainer_state(dir_);
    FAIL() << "expected verlpp::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer_state.json: the trainer's step, dataloader and "
                                         "RNG state is a folder, not a file"),
              std::string::npos)
        << e.what();
  }
  fs::remove(dir_ / "trainer_state.json");
  fs::create_symlink("trainer_state.json", dir_ / "trainer_state.json");
  try {
    read_trainer_state(dir_);
    FAIL() << "expected verlpp::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Too many levels of symbolic links"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace verlpp::trainer
