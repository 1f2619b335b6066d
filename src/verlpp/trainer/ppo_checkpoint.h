// Saving and resuming a PPO run (verl.md §7.5): global_step_N/ with actor/ (HF weights, tokenizer,
// optimizer and scheduler state), critic/ (the same plus value_head/), and trainer_state.json
// {"global_step", "dataloader", "kl_coef", "rng" (the default CPU generator, hex)}; written into a
// temporary folder and renamed into place (CheckpointWriter), then the run's own oldest saves
// removed beyond trainer.max_actor_ckpt_to_keep (CheckpointRotation).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

#include "verlpp/trainer/ppo_context.h"

namespace verlpp::trainer {

// Writes global_step_{global_step} under trainer.default_local_dir and returns its path. Throws
// verlpp::Error naming the folder on an I/O failure; the previous checkpoint and the tracker file
// are then untouched.
std::filesystem::path save_ppo_checkpoint(PpoContext& ctx, std::int64_t global_step);

// Applies trainer.resume_mode (auto / disable / resume_path) and restores the actor, critic,
// dataloader position, KL coefficient and RNG from the checkpoint. Returns the step it holds, or
// nullopt when training starts from scratch. Throws verlpp::Error naming the folder when the
// checkpoint is incomplete, corrupt or made for another model or dataset.
std::optional<std::int64_t> resume_ppo_checkpoint(PpoContext& ctx);

}  // namespace verlpp::trainer
