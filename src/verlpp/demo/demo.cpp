#include "verlpp/demo/demo.h"

#include <fmt/format.h>

#include <iostream>

#include "verlpp/config/compose.h"
#include "verlpp/config/sft_sections.h"
#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/data/row_reader.h"
#include "verlpp/demo/arithmetic_task.h"
#include "verlpp/demo/char_tokenizer.h"
#include "verlpp/model/causal_lm.h"
#include "verlpp/trainer/sft_trainer.h"
#include "verlpp/trainer/train_checkpoint.h"

namespace verlpp::demo {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMarker = "verlpp_demo.json";

void reset_folder(const fs::path& root) {
  std::error_code ec;
  if (fs::exists(root) && !fs::is_empty(root)) {
    if (!fs::exists(root / kMarker)) {
      throw Error(root.string() + " exists and is not a verlpp demo folder (no " + kMarker +
                  "); remove it or run the demo elsewhere");
    }
    fs::remove_all(root, ec);
    if (ec) throw Error("cannot clear " + root.string() + ": " + ec.message());
  }
  fs::create_directories(root, ec);
  if (ec) throw Error("cannot create " + root.string() + ": " + ec.message());
}

void write_task(const DemoPaths& paths, const DemoSettings& s) {
  fs::create_directories(paths.data);
  const auto problems = addition_problems(s.train_problems + s.val_problems, s.max_digits, s.seed);
  const auto sloppy = sloppy_demonstrations(static_cast<std::int64_t>(problems.size()),
                                            s.sloppy_fraction, s.seed + 1);
  std::vector<data::Row> train, val, sft_train, sft_val;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(problems.size()); ++i) {
    const bool is_val = i >= s.train_problems;
    const auto& p = problems[static_cast<std::size_t>(i)];
    const std::int64_t index = is_val ? i - s.train_problems : i;
    (is_val ? val : train).push_back(rl_row(p, is_val ? "test" : "train", index));
    (is_val ? sft_val : sft_train).push_back(sft_row(p, sloppy[static_cast<std::size_t>(i)]));
  }
  data::write_jsonl((paths.data / "train.jsonl").string(), train);
  data::write_jsonl((paths.data / "val.jsonl").string(), val);
  data::write_jsonl((paths.data / "sft_train.jsonl").string(), sft_train);
  data::write_jsonl((paths.data / "sft_val.jsonl").string(), sft_val);
}

model::ModelConfig demo_model(const DemoSettings& s) {
  model::ModelConfig c;
  c.architecture = model::Architecture::qwen3;
  c.vocab_size = char_tokenizer_vocab_size();
  c.hidden_size = s.hidden_size;
  c.intermediate_size = s.intermediate_size;
  c.num_hidden_layers = s.num_hidden_layers;
  c.num_attention_heads = s.num_attention_heads;
  c.num_key_value_heads = s.num_key_value_heads;
  c.head_dim = s.hidden_size / s.num_attention_heads;
  c.max_position_embeddings = 64;
  c.rope_theta = 10000.0;
  c.qk_norm = true;
  c.tie_word_embeddings = true;
  c.torch_dtype = "float32";
  c.eos_token_id = char_tokenizer_vocab_size() - 1;
  return c;
}

std::string path_arg(const fs::path& p) { return p.string(); }

}  // namespace

DemoPaths::DemoPaths(const fs::path& r)
    : root(fs::absolute(r)),
      data(root / "data"),
      tokenizer(root / "tokenizer"),
      model_init(root / "model_init"),
      sft(root / "sft"),
      grpo(root / "grpo") {}

void prepare_demo(const DemoPaths& paths, const DemoSettings& s) {
  reset_folder(paths.root);
  write_file_atomically(paths.root / kMarker, "{\"written_by\": \"verlpp ppo (built-in demo)\"}\n");
  write_task(paths, s);
  write_char_tokenizer(paths.tokenizer);
  const auto lm = model::CausalLM::random_init(demo_model(s), s.seed, 0.02, at::kFloat);
  lm.save_pretrained(paths.model_init.string(), at::kFloat);
  trainer::copy_tokenizer_files(paths.tokenizer, paths.model_init);
}

fs::path run_demo_sft(const DemoPaths& paths, const DemoSettings& s) {
  config::ConfigRequest request;
  request.config_name = "sft_trainer";
  request.overrides = {
      "data.train_files=" + path_arg(paths.data / "sft_train.jsonl"),
      "data.val_files=" + path_arg(paths.data / "sft_val.jsonl"),
      "data.prompt_key=prompt",
      "data.response_key=response",
      fmt::format("data.train_batch_size={}", s.sft_batch_size),
      "data.max_length=32",
      "data.max_token_len_per_gpu=4096",
      "model.path=" + path_arg(paths.model_init),
      "model.enable_gradient_checkpointing=false",
      fmt::format("optim.lr={}", s.sft_lr),
      "optim.lr_scheduler_type=cosine",
      "optim.lr_warmup_steps_ratio=0.05",
      "optim.weight_decay=0.0",
      fmt::format("trainer.total_training_steps={}", s.sft_steps),
      "trainer.total_epochs=1000",  // the demo counts steps (a run ends at whichever comes first)
      "trainer.default_local_dir=" + path_arg(paths.sft),
      "trainer.project_name=verlpp_demo",
      "trainer.experiment_name=sft",
      "trainer.logger=[]",
      "trainer.resume_mode=disable",
      "trainer.device=cpu",
  };
  const config::ComposedConfig composed = config::compose_config(request);
  const config::SftConfig sft = config::bind_sft_config(composed.root);
  const config::Findings findings = config::validate_sft_config(sft);
  for (const auto& f : findings) {
    if (f.severity == config::Finding::Severity::error) {
      throw Error("demo SFT config: " + f.key + ": " + f.message);
    }
  }
  const trainer::SftRunSummary summary = trainer::run_sft(sft);
  if (!summary.last_checkpoint) throw Error("the demo's SFT stage wrote no checkpoint");
  std::cerr << fmt::format("verlpp demo: SFT {} steps, train loss {:.4f}, val loss {:.4f}\n",
                           summary.last_step, summary.last_train_loss.value_or(0),
                           summary.last_val_loss.value_or(0));
  return *summary.last_checkpoint / "actor" / "huggingface";
}

std::vector<std::string> demo_grpo_overrides(const DemoPaths& paths, const fs::path& actor_model,
                                             const DemoSettings& s) {
  std::vector<std::string> o = {
      "algorithm.adv_estimator=grpo",
      "actor_rollout_ref.rollout.name=vllm",
      "actor_rollout_ref.rollout.tensor_model_parallel_size=1",
      "data.train_files=" + path_arg(paths.data / "train.jsonl"),
      "data.val_files=" + path_arg(paths.data / "val.jsonl"),
      fmt::format("data.train_batch_size={}", s.grpo_batch_size),
      "data.max_prompt_length=16",
      "data.max_response_length=8",
      "actor_rollout_ref.model.path=" + path_arg(actor_model),
      "actor_rollout_ref.model.enable_gradient_checkpointing=false",
      fmt::format("actor_rollout_ref.rollout.n={}", s.rollout_n),
      fmt::format("actor_rollout_ref.actor.ppo_mini_batch_size={}", s.grpo_mini_batch_size),
      fmt::format("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu={}",
                  s.grpo_mini_batch_size * s.rollout_n),
      fmt::format("actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu={}",
                  s.grpo_batch_size * s.rollout_n),
      fmt::format("actor_rollout_ref.actor.optim.lr={}", s.grpo_lr),
      "actor_rollout_ref.actor.use_kl_loss=false",
      "actor_rollout_ref.actor.entropy_coeff=0",
      "algorithm.use_kl_in_reward=false",
      "trainer.val_before_train=true",
      fmt::format("trainer.test_freq={}", s.grpo_steps),
      fmt::format("trainer.total_training_steps={}", s.grpo_steps),
      "trainer.total_epochs=1000",
      fmt::format("trainer.save_freq={}", s.grpo_steps),  // the final model (a teacher to distil)
      "trainer.resume_mode=disable",
      "trainer.default_local_dir=" + path_arg(paths.grpo),
      "trainer.project_name=verlpp_demo",
      "trainer.experiment_name=grpo",
      "trainer.logger=['console']",
      "trainer.device=cpu",
      "trainer.nnodes=1",
      "trainer.n_gpus_per_node=1",
  };
  o.insert(o.end(), s.grpo_overrides.begin(), s.grpo_overrides.end());
  return o;
}

}  // namespace verlpp::demo
