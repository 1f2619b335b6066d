#include "verlpp/trainer/checkpoint_dir.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"
#include "verlpp/core/fault_point.h"
#include "verlpp/core/input_file.h"
#include "verlpp/core/log.h"

namespace verlpp::trainer {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kPrefix = "global_step_";

std::optional<std::int64_t> parse_non_negative(std::string_view text) {
  std::int64_t value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

std::vector<std::pair<std::int64_t, fs::path>> list_checkpoints(const fs::path& dir) {
  std::vector<std::pair<std::int64_t, fs::path>> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_directory()) continue;
    if (auto step = step_of_checkpoint(entry.path())) found.emplace_back(*step, entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Adds `saved` to the rotation and removes its oldest other saves beyond max_to_keep.
void rotate(CheckpointRotation& rotation, const fs::path& saved) {
  std::erase(rotation.saved, saved);
  rotation.saved.push_back(saved);
  if (!rotation.max_to_keep || *rotation.max_to_keep <= 0) return;
  while (static_cast<std::int64_t>(rotation.saved.size()) > *rotation.max_to_keep) {
    const fs::path oldest = rotation.saved.front();
    // The error_code overload: PyTorch 2.11's libtorch.so exports a
    // std::filesystem::remove_all(path) that crashes when it is bound instead of libstdc++'s (seen
    // on the GPU machine).
    std::error_code error;
    fs::remove_all(oldest, error);
    if (error) throw Error("checkpoint: cannot remove " + oldest.string() + ": " + error.message());
    rotation.saved.erase(rotation.saved.begin());
    log_note(fmt::format("removed {}, this run's oldest checkpoint ({} {})", oldest.string(),
                         rotation.key, *rotation.max_to_keep));
  }
}

ResumePoint resume_point(const fs::path& folder, const std::string& what) {
  const auto step = step_of_checkpoint(folder);
  if (!step) {
    throw Error(what + ": " + folder.string() + " is not a global_step_N checkpoint folder");
  }
  if (!fs::is_directory(folder))
    throw Error(what + ": checkpoint " + folder.string() + " is missing");
  return {folder, *step};
}

// Auto-resume without a tracker file: verl starts over (and its next save replaces the
// global_step_N already there); verlpp resumes from the newest global_step_N folder, which it
// only ever creates complete (a rename of a finished staging folder), so that no checkpoint is
// lost to a deleted or never-written tracker.
std::optional<ResumePoint> newest_checkpoint(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) return std::nullopt;
  const auto found = list_checkpoints(dir);
  if (found.empty()) return std::nullopt;
  const auto& [step, folder] = found.back();
  log_warning("checkpoint: " + (dir / kTrackerFile).string() + " is missing; resuming from " +
              folder.string() + ", the newest checkpoint there (trainer.resume_mode=disable " +
              "starts over)");
  return ResumePoint{folder, step};
}

}  // namespace

std::optional<std::int64_t> step_of_checkpoint(const fs::path& folder) {
  const std::string name = (folder.has_filename() ? folder : folder.parent_path()).filename();
  if (name.rfind(kPrefix, 0) != 0) return std::nullopt;
  return parse_non_negative(std::string_view(name).substr(kPrefix.size()));
}

std::optional<std::int64_t> read_latest_iteration(const fs::path& dir) {
  const fs::path tracker = dir / kTrackerFile;
  if (nothing_at(tracker.string())) return std::nullopt;
  const std::string text = trim(read_text_file(tracker.string(), "checkpoint tracker"));
  const auto step = parse_non_negative(text);
  if (!step) throw Error(tracker.string() + ": expected a step number, got '" + text + "'");
  return step;
}

std::optional<ResumePoint> resolve_resume(const std::string& resume_mode,
                                          const fs::path& default_local_dir,
                                          const std::optional<std::string>& resume_from_path) {
  if (resume_mode == "disable") return std::nullopt;
  if (resume_mode == "auto") {
    const auto step = read_latest_iteration(default_local_dir);
    if (!step) return newest_checkpoint(default_local_dir);
    return resume_point(default_local_dir / (std::string(kPrefix) + std::to_string(*step)),
                        default_local_dir.string() + "/" + kTrackerFile);
  }
  if (resume_mode == "resume_path") {
    if (!resume_from_path || resume_from_path->empty()) {
      throw Error(
          "trainer.resume_mode=resume_path needs trainer.resume_from_path=.../global_step_N");
    }
    return resume_point(fs::path(*resume_from_path), "trainer.resume_from_path");
  }
  throw Error("trainer.resume_mode: expected auto, disable or resume_path, got '" + resume_mode +
              "'");
}

fs::path checkpoint_folder(const fs::path& dir, std::int64_t global_step) {
  return dir / (std::string(kPrefix) + std::to_string(global_step));
}

namespace {

fs::path staging_path(const fs::path& dir, std::int64_t global_step, std::int64_t tag) {
  return dir /
         (".tmp_" + std::string(kPrefix) + std::to_string(global_step) + "_" + std::to_string(tag));
}

// Where a commit moves the global_step_N it replaces until the new one is in place.
fs::path replaced_path(const fs::path& dir, std::int64_t global_step, std::int64_t tag) {
  return dir /
         (".old_" + std::string(kPrefix) + std::to_string(global_step) + "_" + std::to_string(tag));
}

// The step N of a name PREFIX global_step_N _ TAG (digits only), as staging_path and
// replaced_path make them; nullopt for any other name (a user's folder is never taken for one).
std::optional<std::int64_t> step_of_own_folder(const std::string& name, const std::string& prefix) {
  const std::string head = prefix + std::string(kPrefix);
  if (name.rfind(head, 0) != 0) return std::nullopt;
  const std::string rest = name.substr(head.size());
  const auto sep = rest.find('_');
  if (sep == std::string::npos || !parse_non_negative(rest.substr(sep + 1))) return std::nullopt;
  return parse_non_negative(rest.substr(0, sep));
}

// Moves every entry of `from` that `to` lacks into `to` (folders present in both are merged the
// same way): a save into an earlier run's global_step_N keeps the files it does not write, as
// verl's save into the folder in place keeps them (bt16 lost a user's eval file and exported
// model). Logs what it keeps.
void keep_foreign_entries(const fs::path& from, const fs::path& to) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(from, error)) {
    const fs::path dest = to / entry.path().filename();
    if (!fs::exists(fs::symlink_status(dest))) {
      fs::rename(entry.path(), dest, error);
      if (error) {
        throw Error("checkpoint: cannot keep " + entry.path().string() + " in " + to.string() +
                    ": " + error.message());
      }
      log_note("kept " + dest.string() + " of the earlier checkpoint it replaced");
    } else if (entry.is_directory() && !entry.is_symlink() && fs::is_directory(dest)) {
      keep_foreign_entries(entry.path(), dest);
    }
  }
  if (error) throw Error("checkpoint: cannot read " + from.string() + ": " + error.message());
}

// `old` (a global_step_N being replaced) after the new `target` is in place: what verlpp did not
// write carried over, the rest removed. A link is only unlinked: the folder it names is the
// user's, not the checkpoint's (bt16 c60).
void retire_replaced(const fs::path& old, const fs::path& target) {
  if (!fs::is_symlink(old)) keep_foreign_entries(old, target);
  std::error_code error;
  fs::remove_all(old, error);
  if (error) throw Error("checkpoint: cannot remove " + old.string() + ": " + error.message());
}

}  // namespace

CheckpointWriter::CheckpointWriter(fs::path dir, std::int64_t global_step)
    : CheckpointWriter(std::move(dir), global_step, getpid()) {}

CheckpointWriter::CheckpointWriter(fs::path dir, std::int64_t global_step, std::int64_t tag)
    : dir_(std::move(dir)), global_step_(global_step), tag_(tag) {
  staging_ = staging_path(dir_, global_step, tag);
  std::error_code error;
  fs::remove_all(staging_, error);
  fs::create_directories(staging_, error);
  if (error) throw Error("checkpoint: cannot create " + staging_.string() + ": " + error.message());
}

CheckpointWriter::~CheckpointWriter() {
  if (committed_) return;
  std::error_code error;
  fs::remove_all(staging_, error);
}

void refuse_input_in_replaceable_checkpoint(const fs::path& dir, std::int64_t start_step,
                                            std::int64_t last_step, const std::string& key,
                                            const fs::path& path) {
  std::error_code error;
  const fs::path inside =
      fs::weakly_canonical(path, error).lexically_relative(fs::weakly_canonical(dir, error));
  if (error || inside.empty() || *inside.begin() == "..") return;
  const std::optional<std::int64_t> step = step_of_checkpoint(*inside.begin());
  if (!step || *step <= start_step || *step > last_step) return;
  // global_step_02 parses as step 2 but is not the folder a save of step 2 writes (bt16).
  if (*inside.begin() != checkpoint_folder(dir, *step).filename()) return;
  throw Error(fmt::format(
      "{}: {} is inside {}, which this run (from step {}) replaces if it saves step {}; copy it "
      "out of trainer.default_local_dir or set trainer.default_local_dir to another folder",
      key, path.string(), checkpoint_folder(dir, *step).string(), start_step, *step));
}

void refuse_inputs_in_replaceable_checkpoints(const fs::path& dir, std::int64_t start_step,
                                              std::int64_t last_step,
                                              const std::vector<RunInput>& inputs) {
  for (const RunInput& input : inputs) {
    refuse_input_in_replaceable_checkpoint(dir, start_step, last_step, input.key, input.path);
  }
}

void recover_checkpoint_dir(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) return;
  std::vector<fs::path> staging;
  std::vector<std::pair<fs::path, std::int64_t>> replaced;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory(error) || entry.is_symlink(error)) continue;
    if (step_of_own_folder(name, ".tmp_")) staging.push_back(entry.path());
    if (const auto step = step_of_own_folder(name, ".old_"))
      replaced.emplace_back(entry.path(), *step);
  }
  for (const fs::path& folder : staging) {
    fs::remove_all(folder, error);
    if (error) throw Error("checkpoint: cannot remove " + folder.string() + ": " + error.message());
    log_note("removed the unfinished checkpoint " + folder.string() + " of an earlier run");
  }
  for (const auto& [old, step] : replaced) {
    const fs::path target = checkpoint_folder(dir, step);
    if (fs::exists(target)) {
      retire_replaced(old, target);
      log_note("removed " + old.string() + ", the checkpoint " + target.string() +
               " replaced when a save was interrupted");
    } else {
      fs::rename(old, target, error);
      if (error) throw Error("checkpoint: cannot recover " + old.string() + ": " + error.message());
      log_note("restored " + target.string() + " (its replacement was interrupted)");
    }
  }
}

fs::path CheckpointWriter::commit(CheckpointRotation& rotation) {
  const fs::path target = checkpoint_folder(dir_, global_step_);
  const fs::path replaced = replaced_path(dir_, global_step_, tag_);
  std::error_code error;
  // Every file of the new checkpoint on the disk before any rename makes it the checkpoint.
  sync_tree_to_disk(staging_);
  fault_point("checkpoint_staged", global_step_);
  fs::remove_all(replaced, error);
  const bool replacing = fs::exists(target);
  if (replacing) fs::rename(target, replaced);
  fault_point("checkpoint_old_moved", global_step_);
  fs::rename(staging_, target, error);
  if (error) {
    if (fs::exists(replaced)) fs::rename(replaced, target);
    throw Error("checkpoint: cannot move " + staging_.string() + " to " + target.string() + ": " +
                error.message());
  }
  committed_ = true;
  sync_to_disk(dir_);
  fault_point("checkpoint_renamed", global_step_);
  write_file_atomically(dir_ / kTrackerFile, std::to_string(global_step_));
  fault_point("checkpoint_tracked", global_step_);
  if (replacing) {
    retire_replaced(replaced, target);
    log_note("replaced the earlier checkpoint " + target.string());
  }
  rotate(rotation, target);
  return target;
}

fs::path write_checkpoint_on_ranks(const dist::Communicator& world, const fs::path& dir,
                                   std::int64_t global_step, CheckpointRotation& rotation,
                                   const std::function<void(const fs::path& staging)>& write) {
  const auto tag = static_cast<std::int64_t>(
      world.all_reduce(world.is_main() ? static_cast<double>(getpid()) : 0.0, dist::ReduceOp::sum));
  std::optional<CheckpointWriter> writer;
  if (world.is_main()) writer.emplace(dir, global_step, tag);
  world.barrier();
  write(staging_path(dir, global_step, tag));
  world.barrier();
  if (writer) writer->commit(rotation);
  world.barrier();
  return checkpoint_folder(dir, global_step);
}

}  // namespace verlpp::trainer
