// The checkpoint folder layout of verl (verl.md §7.5; verl/utils/checkpoint/checkpoint_manager.py):
//
//   {trainer.default_local_dir}/latest_checkpointed_iteration.txt   text "N"
//   {trainer.default_local_dir}/global_step_{N}/                    one checkpoint
//
// verlpp writes a checkpoint into a temporary sibling folder and renames it into place, then
// rewrites the tracker file through a temporary name, so a crash or a full disk never leaves a
// tracker pointing at a partial checkpoint and never loses the previous one.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "verlpp/dist/communicator.h"

namespace verlpp::trainer {

inline constexpr const char* kTrackerFile = "latest_checkpointed_iteration.txt";

// {dir}/global_step_{N}.
std::filesystem::path checkpoint_folder(const std::filesystem::path& dir, std::int64_t global_step);

// The step N of a folder named global_step_N (any parent); nullopt for other names.
std::optional<std::int64_t> step_of_checkpoint(const std::filesystem::path& folder);

// N from {dir}/latest_checkpointed_iteration.txt; nullopt when the file is absent. Throws
// verlpp::Error naming the file when it does not hold a non-negative integer.
std::optional<std::int64_t> read_latest_iteration(const std::filesystem::path& dir);

struct ResumePoint {
  std::filesystem::path folder;  // .../global_step_N
  std::int64_t global_step = 0;  // N; training continues at N + 1
};

// verl's resume rules: "disable" → nullopt; "auto" → the tracker's checkpoint in
// default_local_dir; without a tracker the newest global_step_N folder there (verl: none, and its
// saves then replace them), nullopt when there is none; "resume_path" → resume_from_path, which
// must name a global_step_N folder. Throws verlpp::Error naming trainer.resume_mode for another
// mode, and naming the folder when it is missing or misnamed.
std::optional<ResumePoint> resolve_resume(const std::string& resume_mode,
                                          const std::filesystem::path& default_local_dir,
                                          const std::optional<std::string>& resume_from_path);

// Throws verlpp::Error naming `key` when `path` (a model or tokenizer the run has read) lies in
// {dir}/global_step_N with start_step < N <= last_step: a folder this run's save of step N would
// replace, losing what was read from it (bt15: a teacher distilled from an earlier run's
// checkpoint in the same default_local_dir). Paths elsewhere, in the checkpoint the run resumed
// from, or in a step the run does not reach, pass.
void refuse_input_in_replaceable_checkpoint(const std::filesystem::path& dir,
                                            std::int64_t start_step, std::int64_t last_step,
                                            const std::string& key,
                                            const std::filesystem::path& path);

// A file or folder a run reads, by the key that names it (data.train_files[0], ...).
struct RunInput {
  std::string key;
  std::filesystem::path path;
};

// refuse_input_in_replaceable_checkpoint for each input.
void refuse_inputs_in_replaceable_checkpoints(const std::filesystem::path& dir,
                                              std::int64_t start_step, std::int64_t last_step,
                                              const std::vector<RunInput>& inputs);

// What a save killed midway leaves in `dir`, put right (call on one rank, before resuming): its
// staging folders .tmp_global_step_N_TAG are removed, and a .old_global_step_N_TAG (the folder a
// save was replacing when the kill came) is renamed back to global_step_N when that is missing,
// else merged into it as a commit does (entries global_step_N lacks are kept) and removed. Only
// names of exactly these forms (N and TAG digits) are verlpp's; a user's global_step_2.old or
// .tmp_global_step_notes is left alone (bt16). Logs each step. Throws verlpp::Error naming the
// folder when that fails.
void recover_checkpoint_dir(const std::filesystem::path& dir);

// The checkpoints a run has saved, oldest first, and how many of them to keep (`key`, e.g.
// trainer.max_actor_ckpt_to_keep; nullopt or <= 0 keeps all). As verl's checkpoint managers
// (previous_saved_paths, per process), a run rotates only its own saves: the checkpoints of an
// earlier run in default_local_dir, the one it resumed from included, are never removed
// (bt15 lost a teacher loaded from an earlier run's global_step_4 to the rotation).
struct CheckpointRotation {
  std::string key;
  std::optional<std::int64_t> max_to_keep;
  std::vector<std::filesystem::path> saved;
};

// Writes one checkpoint atomically. begin() returns an empty temporary folder to fill; commit()
// moves it to global_step_N, updates the tracker, adds it to `rotation` and removes the rotation's
// oldest saves beyond max_to_keep (never the folder just committed), logging each removal. An
// earlier global_step_N is replaced (logged) but the files and folders in it that the new
// checkpoint does not have are kept in the new one, as verl's save in place keeps them.
// A CheckpointWriter destroyed without commit() removes its temporary folder. The tracker file is
// written with verlpp::write_file_atomically (core/atomic_file.h).
class CheckpointWriter {
 public:
  // The temporary folder is {dir}/.tmp_global_step_{N}_{tag} (tag: this process's id by default).
  CheckpointWriter(std::filesystem::path dir, std::int64_t global_step, std::int64_t tag);
  CheckpointWriter(std::filesystem::path dir, std::int64_t global_step);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  const std::filesystem::path& staging_folder() const { return staging_; }
  std::filesystem::path commit(CheckpointRotation& rotation);

 private:
  std::filesystem::path dir_, staging_;
  std::int64_t global_step_, tag_;
  bool committed_ = false;
};

// Writes one checkpoint from every rank of `world` (all call it): rank 0 makes the temporary
// folder, every rank runs `write` on it (collectives allowed: every rank runs it), and rank 0
// commits it as CheckpointWriter does, after all have written (rank 0's `rotation` is the one
// that counts). Returns global_step_N.
std::filesystem::path write_checkpoint_on_ranks(
    const dist::Communicator& world, const std::filesystem::path& dir, std::int64_t global_step,
    CheckpointRotation& rotation,
    const std::function<void(const std::filesystem::path& staging)>& write);

}  // namespace verlpp::trainer
