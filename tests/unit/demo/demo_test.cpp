#include "verlpp/demo/demo.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/temp_dir.h"
#include "verlpp/config/compose.h"
#include "verlpp/config/sft_sections.h"
#include "verlpp/core/error.h"
#include "verlpp/data/row_reader.h"
#include "verlpp/demo/arithmetic_task.h"
#include "verlpp/demo/char_tokenizer.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/model/score.h"
#include "verlpp/reward/dispatch.h"
#include "verlpp/tokenizer/tokenizer.h"
#include "verlpp/trainer/sft_trainer.h"

namespace verlpp::demo {
namespace {

namespace fs = std::filesystem;

class DemoFolder : public ::testing::Test {
 protected:
  // A folder the test creates (the demo's), inside one removed afterwards.
  const verlpp::testing::TempDir temp_;
  const fs::path root_ = temp_.root() / "demo";
};

TEST_F(DemoFolder, CharTokenizerEncodesTheTaskAndRendersTheChat) {
  write_char_tokenizer(root_);
  const auto tok = tokenizer::Tokenizer::from_directory(root_);
  EXPECT_EQ(tok.vocab_size(), 16);
  EXPECT_EQ(char_tokenizer_vocab_size(), 16);
  // Characters are ids 0-11 in "0123456789+="; <|pad|> 12, <|user|> 13, <|assistant|> 14,
  // <|end|> 15.
  using Ids = std::vector<std::int32_t>;
  EXPECT_EQ(tok.encode("37+485="), (Ids{3, 7, 10, 4, 8, 5, 11}));
  EXPECT_EQ(tok.decode(Ids{5, 2, 2, 15}), "522<|end|>");
  EXPECT_EQ(tok.decode(Ids{5, 2, 2, 15}, /*skip_special_tokens=*/true), "522");
  EXPECT_EQ(tok.special_tokens().eos_id, 15);
  EXPECT_EQ(tok.special_tokens().pad_id, 12);
  EXPECT_EQ(tok.special_tokens().eos_token_ids, (Ids{15}));
  tokenizer::ChatTemplateOptions generation;
  generation.add_generation_prompt = true;
  const auto chat = tokenizer::OrderedJson::parse(R"([{"role": "user", "content": "1+2="}])");
  EXPECT_EQ(tok.apply_chat_template(chat, generation), "<|user|>1+2=<|assistant|>");
  EXPECT_EQ(tok.encode_chat(chat, generation), (Ids{13, 1, 10, 2, 11, 14}));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(DemoFolder, TokenizerFilesAreWhatTheFixtureHolds) {
  // tests/fixtures/demo/tokenizer is checked against Hugging Face (DemoHf.*).
  write_char_tokenizer(root_);
  const fs::path fixture = fs::path(VERLPP_SOURCE_DIR) / "tests/fixtures/demo/tokenizer";
  for (const char* name : {"tokenizer.json", "tokenizer_config.json", "generation_config.json"}) {
    EXPECT_EQ(read_file(root_ / name), read_file(fixture / name)) << name;
  }
}

TEST(ArithmeticTask, RowsInVerlFormatScoredByTheDispatch) {
  const auto problems = addition_problems(50, 3, 11);
  ASSERT_EQ(problems.size(), 50u);
  for (const auto& p : problems) {
    EXPECT_GE(p.a, 0);
    EXPECT_LT(p.a, 1000);
    EXPECT_LT(p.b, 1000);
  }
  EXPECT_EQ(addition_problems(50, 3, 11)[7].a, problems[7].a);  // seeded
  const AdditionProblem p{37, 485};
  EXPECT_EQ(p.question(), "37+485=");
  EXPECT_EQ(p.answer(), "522");
  const data::Row row = rl_row(p, "train", 4);
  EXPECT_EQ(row["data_source"], "verlpp/arithmetic");
  EXPECT_EQ(row["prompt"][0]["role"], "user");
  EXPECT_EQ(row["prompt"][0]["content"], "37+485=");
  EXPECT_EQ(row["reward_model"]["ground_truth"], "522");
  EXPECT_EQ(row["extra_info"]["index"], 4);
  const std::string source = row["data_source"];
  const std::string truth = row["reward_model"]["ground_truth"];
  EXPECT_EQ(reward::default_compute_score(source, "522", truth, {}).score, 1.0);
  EXPECT_EQ(reward::default_compute_score(source, "521", truth, {}).score, 0.0);
  EXPECT_EQ(sft_row(p), (data::Row{{"prompt", "37+485="}, {"response", "522"}}));
  const data::Row sloppy = sft_row(p, /*sloppy=*/true);
  EXPECT_EQ(sloppy, (data::Row{{"prompt", "37+485="}, {"response", "522+1"}}));
  const std::string response = sloppy["response"];
  EXPECT_EQ(reward::default_compute_score(source, response, truth, {}).score, 0.0);
  EXPECT_THROW(addition_problems(1, 0, 1), Error);
}

TEST(ArithmeticTask, SloppyDemonstrationsAreSeededWithTheRequestedShare) {
  const auto none = sloppy_demonstrations(100, 0.0, 3);
  const auto all = sloppy_demonstrations(100, 1.0, 3);
  EXPECT_EQ(std::count(none.begin(), none.end(), true), 0);
  EXPECT_EQ(std::count(all.begin(), all.end(), true), 100);
  const auto some = sloppy_demonstrations(10000, 0.6, 3);
  const auto count = std::count(some.begin(), some.end(), true);
  // Binomial(10000, 0.6): standard deviation 49; 5 of them either side.
  EXPECT_GT(count, 6000 - 245);
  EXPECT_LT(count, 6000 + 245);
  EXPECT_EQ(sloppy_demonstrations(10000, 0.6, 3), some);
  EXPECT_NE(sloppy_demonstrations(10000, 0.6, 4), some);
  EXPECT_THROW(sloppy_demonstrations(1, 1.5, 3), Error);
}

TEST_F(DemoFolder, PrepareRefusesAForeignFolder) {
  fs::create_directories(root_);
  std::ofstream(root_ / "precious.txt") << "keep me";
  DemoSettings s;
  EXPECT_THROW(prepare_demo(DemoPaths(root_), s), Error);
  EXPECT_TRUE(fs::exists(root_ / "precious.txt"));
}

DemoSettings small_settings() {
  DemoSettings s;
  s.train_problems = 64;
  s.val_problems = 16;
  s.hidden_size = 32;
  s.intermediate_size = 64;
  s.sft_batch_size = 16;
  return s;
}

config::SftConfig sft_config(const DemoPaths& paths, const std::string& resume) {
  config::ConfigRequest request;
  request.config_name = "sft_trainer";
  request.overrides = {"data.train_files=" + (paths.data / "sft_train.jsonl").string(),
                       "data.prompt_key=prompt",
                       "data.response_key=response",
                       "data.train_batch_size=16",
                       "data.micro_batch_size_per_gpu=5",
                       "data.use_dynamic_bsz=false",
                       "data.max_length=32",
                       "model.path=" + paths.model_init.string(),
                       "optim.lr=0.003",
                       "optim.lr_scheduler_type=cosine",
                       "trainer.total_training_steps=4",
                       "trainer.save_freq=2",
                       "trainer.default_local_dir=" + (paths.root / ("sft_" + resume)).string(),
                       "trainer.logger=[]",
                       "trainer.resume_mode=" + resume,
                       "trainer.device=cpu"};
  return config::bind_sft_config(config::compose_config(request).root);
}

// SFT resume equality: 4 steps straight, and resuming at the step-2 checkpoint of that run, end
// with identical losses and weights.
TEST_F(DemoFolder, SftResumesExactly) {
  const DemoPaths paths(root_);
  prepare_demo(paths, small_settings());
  EXPECT_TRUE(config::validate_sft_config(sft_config(paths, "disable")).empty());
  const auto straight = trainer::run_sft(sft_config(paths, "disable"));
  ASSERT_EQ(straight.last_step, 4);
  ASSERT_TRUE(straight.last_checkpoint);
  const fs::path resumed_dir = paths.root / "sft_auto";
  fs::create_directories(resumed_dir);
  fs::copy(paths.root / "sft_disable/global_step_2", resumed_dir / "global_step_2",
           fs::copy_options::recursive);
  std::ofstream(resumed_dir / "latest_checkpointed_iteration.txt") << "2";
  const auto resumed = trainer::run_sft(sft_config(paths, "auto"));
  ASSERT_EQ(resumed.last_step, 4);
  EXPECT_EQ(resumed.last_train_loss, straight.last_train_loss);
  const auto a = model::CausalLM::from_pretrained(
      (*straight.last_checkpoint / "actor/huggingface").string(), at::kFloat, at::kCPU);
  const auto b = model::CausalLM::from_pretrained(
      (*resumed.last_checkpoint / "actor/huggingface").string(), at::kFloat, at::kCPU);
  const auto pa = a.named_parameters(), pb = b.named_parameters();
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(at::equal(pa[i].second, pb[i].second)) << pa[i].first;
  }
  EXPECT_TRUE(fs::exists(*resumed.last_checkpoint / "actor/huggingface/tokenizer.json"));
}

}  // namespace
}  // namespace verlpp::demo

namespace verlpp::demo {
namespace {

// tests/fixtures/demo/hf_reference.json: what Hugging Face tokenizers/transformers compute on the
// demo's tokenizer and on a `verlpp model export` folder (tools/check_demo_hf.py, GPU machine).
nlohmann::json hf_reference() {
  std::ifstream in(fs::path(VERLPP_SOURCE_DIR) / "tests/fixtures/demo/hf_reference.json");
  return nlohmann::json::parse(in);
}

const fs::path kFixture = fs::path(VERLPP_SOURCE_DIR) / "tests/fixtures/demo";

TEST(DemoHf, TokenizerMatchesTokenizersAndTransformers) {
  const auto ref = hf_reference()["tokenizer"];
  const auto tok = tokenizer::Tokenizer::from_directory(kFixture / "tokenizer");
  using Ids = std::vector<std::int32_t>;
  for (const auto& e : ref["encode"]) {
    const Ids ids = tok.encode(e["text"].get<std::string>());
    EXPECT_EQ(ids, e["tokenizers_ids"].get<Ids>()) << e["text"];
    EXPECT_EQ(ids, e["transformers_ids"].get<Ids>()) << e["text"];
  }
  ASSERT_EQ(ref["chat"].size(), 4u);
  for (const auto& c : ref["chat"]) {
    tokenizer::ChatTemplateOptions options;
    options.add_generation_prompt = c["add_generation_prompt"].get<bool>();
    const auto messages = tokenizer::OrderedJson::parse(c["messages"].dump());
    EXPECT_EQ(tok.apply_chat_template(messages, options), c["text"].get<std::string>());
    EXPECT_EQ(tok.encode_chat(messages, options), c["ids"].get<Ids>());
  }
  for (const auto& d : ref["decode"]) {
    const Ids ids = d["ids"].get<Ids>();
    const bool skip = d["skip_special_tokens"].get<bool>();
    EXPECT_EQ(tok.decode(ids, skip), d["transformers_text"].get<std::string>());
    EXPECT_EQ(tok.decode(ids, skip), d["tokenizers_text"].get<std::string>());
  }
  EXPECT_EQ(tok.special_tokens().eos_id, ref["eos_token_id"].get<int>());
  EXPECT_EQ(tok.special_tokens().pad_id, ref["pad_token_id"].get<int>());
  EXPECT_EQ(tok.vocab_size(), ref["length"].get<int>());
}

TEST(DemoHf, ExportedModelLoadsInTransformersWithTheSameLogProbs) {
  const auto ref = hf_reference()["exported"];
  EXPECT_EQ(ref["architecture"], "Qwen3ForCausalLM");
  const auto lm = model::CausalLM::from_pretrained((kFixture / "exported").string(), at::kFloat,
                                                   at::Device(at::kCPU));
  for (const auto& sequence : ref["sequences"]) {
    const auto ids = sequence["ids"].get<std::vector<std::int64_t>>();
    // Score every token after the first: prompt = the first token.
    const model::ScoreRequest request{{ids.front()}, {ids.begin() + 1, ids.end()}};
    const auto ours = model::score(lm, {request}, 1.0).front().logprobs;
    const auto theirs = sequence["logprobs"].get<std::vector<double>>();
    ASSERT_EQ(ours.size(), theirs.size());
    for (std::size_t t = 0; t < ours.size(); ++t) EXPECT_NEAR(ours[t], theirs[t], 2e-5) << t;
  }
}

}  // namespace
}  // namespace verlpp::demo
