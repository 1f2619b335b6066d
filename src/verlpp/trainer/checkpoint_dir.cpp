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

}  // namespace

CheckpointWriter::CheckpointWriter(fs::path dir, std::int64_t global_step)
    : CheckpointWriter(std::move(dir), global_step, getpid()) {}

CheckpointWriter::CheckpointWriter(fs::path dir, std::int64_t global_step, std::int64_t tag)
    : dir_(std::move(dir)), global_step_(global_step) {
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
  throw Error(fmt::format(
      "{}: {} is inside {}, which this run (from step {}) replaces if it saves step {}; copy the "
      "model out of trainer.default_local_dir or set trainer.default_local_dir to another folder",
      key, path.string(), checkpoint_folder(dir, *step).string(), start_step, *step));
}

void recover_checkpoint_dir(const fs::path& dir) {
  std::error_code error;
  if (!fs::is_directory(dir, error)) return;
  std::vector<fs::path> staging, replaced;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory(error)) continue;
    if (name.rfind(".tmp_" + std::string(kPrefix), 0) == 0) staging.push_back(entry.path());
    if (name.ends_with(".old") && step_of_checkpoint(name.substr(0, name.size() - 4))) {
      replaced.push_back(entry.path());
    }
  }
  for (const fs::path& folder : staging) {
    fs::remove_all(folder, error);
    if (error) throw Error("checkpoint: cannot remove " + folder.string() + ": " + error.message());
    log_note("removed the unfinished checkpoint " + folder.string() + " of an earlier run");
  }
  for (const fs::path& old : replaced) {
    const fs::path target = old.parent_path() / old.stem();
    if (fs::exists(target)) {
      fs::remove_all(old, error);
    } else {
      fs::rename(old, target, error);
      if (!error) log_note("restored " + target.string() + " (its replacement was interrupted)");
    }
    if (error) throw Error("checkpoint: cannot recover " + old.string() + ": " + error.message());
  }
}

fs::path CheckpointWriter::commit(CheckpointRotation& rotation) {
  const fs::path target = checkpoint_folder(dir_, global_step_);
  const fs::path replaced = target.string() + ".old";
  std::error_code error;
  // Every file of the new checkpoint on the disk before any rename makes it the checkpoint.
  sync_tree_to_disk(staging_);
  fault_point("checkpoint_staged", global_step_);
  fs::remove_all(replaced, error);
  if (fs::exists(target)) fs::rename(target, replaced);
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
  fs::remove_all(replaced, error);
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
