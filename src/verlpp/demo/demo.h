// `verlpp ppo` with no arguments: a self-contained run that proves learning on a CPU (issue 8).
// It writes into one work folder
//   data/{train,val}.jsonl          the addition task as verl RL rows (arithmetic_task.h)
//   data/sft_{train,val}.jsonl      the same problems as SFT rows (prompt/response)
//   tokenizer/                      the character-level tokenizer (char_tokenizer.h)
//   model_init/                     a small Qwen3 with random weights (HF folder)
//   sft/global_step_N/              `verlpp sft`'s checkpoint (warm start)
//   grpo/                           `verlpp ppo`'s GRPO checkpoints
// then runs SFT (trainer::run_sft) for a fixed number of steps, and GRPO (trainer::run_ppo) from
// the SFT checkpoint's actor/huggingface folder with validation before training (greedy, the
// val_kwargs defaults). It reports the mean validation reward of the SFT checkpoint, the final one
// and the gain.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace verlpp::demo {

// The knobs of the demo (defaults are the tuned ones `verlpp ppo` uses).
struct DemoSettings {
  int max_digits = 2;
  std::int64_t train_problems = 4096, val_problems = 256;
  std::uint64_t seed = 7;
  // Model: Qwen3 shape.
  std::int64_t hidden_size = 64, intermediate_size = 256, num_hidden_layers = 2,
               num_attention_heads = 4, num_key_value_heads = 2;
  // SFT stage: this fraction of the demonstrations is sloppy (arithmetic_task.h).
  double sloppy_fraction = 0.6;
  std::int64_t sft_steps = 900, sft_batch_size = 64;
  double sft_lr = 1.5e-3;
  // GRPO stage.
  std::int64_t grpo_steps = 90, grpo_batch_size = 32, grpo_mini_batch_size = 8, rollout_n = 8;
  double grpo_lr = 8e-5;
  // Extra verl overrides appended to the GRPO stage's (key=value).
  std::vector<std::string> grpo_overrides;
};

struct DemoPaths {
  std::filesystem::path root, data, tokenizer, model_init, sft, grpo;
  explicit DemoPaths(const std::filesystem::path& root);
};

// Writes the task, the tokenizer and the initial model. `root` must be absent, empty, or a folder
// a previous demo wrote (it holds verlpp_demo.json); that folder's contents are replaced. Throws
// verlpp::Error for another non-empty folder or an I/O failure.
void prepare_demo(const DemoPaths& paths, const DemoSettings& settings);

// The SFT stage; returns the HF folder of its final checkpoint (global_step_N/actor/huggingface).
std::filesystem::path run_demo_sft(const DemoPaths& paths, const DemoSettings& settings);

// The verl overrides of the GRPO stage, starting from `actor_model` (an HF folder).
std::vector<std::string> demo_grpo_overrides(const DemoPaths& paths,
                                             const std::filesystem::path& actor_model,
                                             const DemoSettings& settings);

struct DemoResult {
  double sft_val_reward = 0, final_val_reward = 0;
  double seconds = 0;
};

// Everything above, with progress on stderr and the summary on stdout. Throws verlpp::Error when
// a stage fails.
DemoResult run_demo(const std::filesystem::path& root, const DemoSettings& settings = {});

}  // namespace verlpp::demo
