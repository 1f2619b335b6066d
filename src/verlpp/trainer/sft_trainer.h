// `verlpp sft`: verl's SFT trainer (verl/trainer/sft_trainer.py; verl.md §8.2), in one process or
// over trainer.nnodes × trainer.n_gpus_per_node data-parallel ranks (trainer/placement.h): each
// rank takes a contiguous share of every batch, the loss is normalised by the whole batch's
// learned tokens and the gradients are summed over the ranks, so a step equals the one-rank step.
//
// Each step takes data.train_batch_size sequences (seeded shuffle per epoch, trainer.seed,
// drop_last), splits them into micro-batches (data.micro_batch_size_per_gpu sequences, or with
// data.use_dynamic_bsz as many as fit in data.max_token_len_per_gpu tokens), accumulates the
// gradient of sft_loss (sft_loss.h) and takes one AdamW step (optim.*; engine/optimizer.h).
// Metrics (trainer.logger): train/loss, train/grad_norm, train/lr, train/global_tokens (the step's
// sequences' tokens, prompts included), train/total_tokens(B) (their sum since the process
// started, in billions), train/mfu (verl's formula over the step's time; 0 on a CPU), and
// val/loss (token-mean NLL over data.val_files) every trainer.test_freq steps and after the last.
// SIGINT/SIGTERM: every rank finishes the step, saves and stops (trainer/signals.h).
// Checkpoints every trainer.save_freq steps and always after the last step (the run's product),
// in the train_checkpoint.h layout:
// {default_local_dir}/global_step_N/actor/huggingface/ is an HF model folder `verlpp ppo` starts
// from (actor_rollout_ref.model.path); trainer_state.json holds the step and dataloader position.
// trainer.resume_mode auto/resume_path continues from one exactly.
//
// Compute dtype: engine.dtype on CUDA; float32 on CPU (bf16 matmuls are slow and lossy there).
// Weights are saved in the compute dtype.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "verlpp/config/sft_sections.h"

namespace verlpp::trainer {

struct SftRunSummary {
  std::int64_t last_step = 0;                            // global step reached
  std::optional<double> last_val_loss;                   // val/loss of the last validation
  std::optional<double> last_train_loss;                 // train/loss of the last step run
  std::optional<std::filesystem::path> last_checkpoint;  // global_step_N folder last written
  int stop_signal = 0;  // the SIGINT/SIGTERM that stopped the run after saving; 0 when none
};

// Runs SFT for a configuration without error findings (validate_sft_config). Throws verlpp::Error
// for bad input (data, tokenizer, model, checkpoint) naming the key, file or line.
SftRunSummary run_sft(const config::SftConfig& config);

}  // namespace verlpp::trainer
