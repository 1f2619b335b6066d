#include "verlpp/trainer/checkpoint_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "common/error_of.h"
#include "common/temp_dir.h"
#include "verlpp/core/atomic_file.h"
#include "verlpp/core/error.h"

namespace verlpp::trainer {
namespace {
namespace fs = std::filesystem;
using verlpp::testing::error_of;

class CheckpointDirTest : public ::testing::Test {
 protected:
  // One save of a run whose saves `rotation` holds (a fresh rotation: a run of its own).
  void save(std::int64_t step, CheckpointRotation& rotation) {
    CheckpointWriter writer(dir_, step);
    std::ofstream(writer.staging_folder() / "model.bin") << "step " << step;
    writer.commit(rotation);
  }
  void save(std::int64_t step) {
    CheckpointRotation keep_all;
    save(step, keep_all);
  }

  const verlpp::testing::TempDir temp_;
  const fs::path dir_ = temp_.root();
};

TEST_F(CheckpointDirTest, StepOfCheckpointFolder) {
  EXPECT_EQ(step_of_checkpoint("/a/b/global_step_12"), 12);
  EXPECT_EQ(step_of_checkpoint("global_step_0/"), 0);
  EXPECT_EQ(step_of_checkpoint("/a/global_step_x"), std::nullopt);
  EXPECT_EQ(step_of_checkpoint("/a/step_3"), std::nullopt);
}

TEST_F(CheckpointDirTest, CommitWritesFolderAndTrackerAndPrunes) {
  CheckpointRotation run{"trainer.max_actor_ckpt_to_keep", 2, {}};
  save(2, run);
  save(4, run);
  save(6, run);
  EXPECT_FALSE(fs::exists(dir_ / "global_step_2"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_4" / "model.bin"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_6" / "model.bin"));
  EXPECT_EQ(run.saved, (std::vector<fs::path>{dir_ / "global_step_4", dir_ / "global_step_6"}));
  EXPECT_EQ(read_latest_iteration(dir_), 6);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

// As verl's checkpoint managers, a run rotates only what it saved: an earlier run's checkpoints
// (later steps under resume_mode=disable, the one a run resumed from, a folder a teacher is read
// from) stay, whatever max_to_keep says; a step saved twice counts once.
TEST_F(CheckpointDirTest, RotationRemovesOnlyThisRunsSaves) {
  save(2);
  save(4);
  save(11);
  CheckpointRotation run{"trainer.max_actor_ckpt_to_keep", 1, {}};
  save(1, run);
  save(3, run);
  save(3, run);
  save(5, run);
  EXPECT_FALSE(fs::exists(dir_ / "global_step_1"));
  EXPECT_FALSE(fs::exists(dir_ / "global_step_3"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_5" / "model.bin"));
  for (const int earlier : {2, 4, 11}) {
    EXPECT_TRUE(fs::exists(dir_ / ("global_step_" + std::to_string(earlier)) / "model.bin"));
  }
  EXPECT_EQ(run.saved, std::vector<fs::path>{dir_ / "global_step_5"});
}

// A model read from a checkpoint folder the run may replace is refused by key; one in the
// checkpoint the run resumed from, in a step after the run's last, or elsewhere, passes.
TEST_F(CheckpointDirTest, InputsInsideReplaceableCheckpointsAreRefused) {
  save(4);
  const fs::path teacher = dir_ / "global_step_4" / "actor" / "huggingface";
  const std::string error = error_of([&] {
    refuse_input_in_replaceable_checkpoint(dir_, 0, 10, "distillation.x.model_path", teacher);
  });
  EXPECT_NE(error.find("distillation.x.model_path: " + teacher.string()), std::string::npos)
      << error;
  EXPECT_NE(error.find("replaces if it saves step 4"), std::string::npos) << error;
  EXPECT_NE(error_of([&] {
              refuse_input_in_replaceable_checkpoint(dir_ / "." / "sub" / "..", 3, 4, "k", teacher);
            }),
            "(no error)");
  refuse_input_in_replaceable_checkpoint(dir_, 4, 10, "k", teacher);
  refuse_input_in_replaceable_checkpoint(dir_, 0, 3, "k", teacher);  // the run ends at step 3
  refuse_input_in_replaceable_checkpoint(dir_, 0, 10, "k", dir_ / "models" / "teacher");
  refuse_input_in_replaceable_checkpoint(dir_, 0, 10, "k",
                                         temp_.root().parent_path() / "global_step_9");
  refuse_input_in_replaceable_checkpoint(dir_ / "absent", 0, 10, "k", teacher);
  // global_step_04 reads as step 4 but no save writes it (bt16 c61: refused, naming global_step_4).
  refuse_input_in_replaceable_checkpoint(dir_, 0, 10, "k", dir_ / "global_step_04" / "model");
  const std::string listed = error_of([&] {
    refuse_inputs_in_replaceable_checkpoints(
        dir_, 0, 10,
        {{"data.train_files[0]", dir_ / "x.jsonl"},
         {"data.val_files[1]", dir_ / "global_step_4" / "val.jsonl"}});
  });
  EXPECT_EQ(listed.rfind("data.val_files[1]: ", 0), 0u) << listed;
}

// What a kill during a save leaves: the staging folder of a save (removed), and
// .old_global_step_N_TAG when the kill came while N was being replaced (renamed back when N is
// missing, so that auto-resume finds a complete checkpoint; merged into N and removed when N is
// complete). Folders a user named alike (global_step_1.old, .tmp_global_step_notes) stay.
TEST_F(CheckpointDirTest, RecoveryAfterAKilledSave) {
  save(1);
  save(2);
  fs::create_directories(dir_ / ".tmp_global_step_3_4242");
  std::ofstream(dir_ / ".tmp_global_step_3_4242" / "partial") << "x";
  fs::create_directories(dir_ / ".tmp_someone_else");
  fs::create_directories(dir_ / ".tmp_global_step_notes");
  fs::rename(dir_ / "global_step_2", dir_ / ".old_global_step_2_77");  // killed between renames
  fs::copy(dir_ / "global_step_1", dir_ / ".old_global_step_1_77", fs::copy_options::recursive);
  std::ofstream(dir_ / ".old_global_step_1_77" / "eval.json") << "{}";  // a user's file
  fs::copy(dir_ / "global_step_1", dir_ / "global_step_1.old", fs::copy_options::recursive);
  recover_checkpoint_dir(dir_);
  EXPECT_FALSE(fs::exists(dir_ / ".tmp_global_step_3_4242"));
  EXPECT_TRUE(fs::exists(dir_ / ".tmp_someone_else"));
  EXPECT_TRUE(fs::exists(dir_ / ".tmp_global_step_notes"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_2" / "model.bin"));
  EXPECT_FALSE(fs::exists(dir_ / ".old_global_step_2_77"));
  EXPECT_FALSE(fs::exists(dir_ / ".old_global_step_1_77"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_1" / "eval.json"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_1.old" / "model.bin"));
  const auto point = resolve_resume("auto", dir_, std::nullopt);
  ASSERT_TRUE(point);
  EXPECT_EQ(point->global_step, 2);
  recover_checkpoint_dir(dir_ / "absent");  // nothing to do
}

// A save into an earlier run's global_step_N replaces what it writes and keeps what it does not
// (a user's eval file, an exported model inside actor/), as verl's save in place does (bt16).
TEST_F(CheckpointDirTest, ReplacingAnEarlierCheckpointKeepsWhatTheSaveDoesNotWrite) {
  save(2);
  std::ofstream(dir_ / "global_step_2" / "eval_results.json") << "{}";
  fs::create_directories(dir_ / "global_step_2" / "actor" / "exported");
  std::ofstream(dir_ / "global_step_2" / "actor" / "exported" / "w") << "w";
  std::ofstream(dir_ / "global_step_2" / "actor" / "weights") << "old";
  CheckpointRotation run;
  CheckpointWriter writer(dir_, 2);
  fs::create_directories(writer.staging_folder() / "actor");
  std::ofstream(writer.staging_folder() / "actor" / "weights") << "new";
  writer.commit(run);
  const auto read = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(dir_ / "global_step_2" / "actor" / "weights"), "new");
  EXPECT_EQ(read(dir_ / "global_step_2" / "actor" / "exported" / "w"), "w");
  EXPECT_EQ(read(dir_ / "global_step_2" / "eval_results.json"), "{}");
  EXPECT_EQ(read(dir_ / "global_step_2" / "model.bin"), "step 2");  // the earlier save's own file
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().rfind(".old_", 0), std::string::npos);
  }
}

TEST_F(CheckpointDirTest, AbandonedWriterLeavesPreviousCheckpointIntact) {
  save(1);
  {
    CheckpointWriter writer(dir_, 2);
    std::ofstream(writer.staging_folder() / "partial") << "x";
  }
  EXPECT_EQ(read_latest_iteration(dir_), 1);
  EXPECT_FALSE(fs::exists(dir_ / "global_step_2"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

TEST_F(CheckpointDirTest, ResumeModes) {
  EXPECT_EQ(resolve_resume("auto", dir_, std::nullopt), std::nullopt);
  save(3);
  const auto automatic = resolve_resume("auto", dir_, std::nullopt);
  ASSERT_TRUE(automatic);
  EXPECT_EQ(automatic->global_step, 3);
  EXPECT_EQ(automatic->folder, dir_ / "global_step_3");
  EXPECT_EQ(resolve_resume("disable", dir_, std::nullopt), std::nullopt);
  const auto explicit_path =
      resolve_resume("resume_path", "/elsewhere", (dir_ / "global_step_3").string());
  ASSERT_TRUE(explicit_path);
  EXPECT_EQ(explicit_path->global_step, 3);
}

// A break-test deleted the tracker: the next run started over and replaced global_step_N.
TEST_F(CheckpointDirTest, AutoResumeWithoutTrackerTakesTheNewestCheckpoint) {
  save(2);
  save(10);
  fs::create_directories(dir_ / "global_step_x");  // not a step: ignored
  fs::remove(dir_ / kTrackerFile);
  const auto point = resolve_resume("auto", dir_, std::nullopt);
  ASSERT_TRUE(point);
  EXPECT_EQ(point->global_step, 10);
  EXPECT_EQ(point->folder, dir_ / "global_step_10");
  EXPECT_EQ(resolve_resume("auto", dir_ / "absent", std::nullopt), std::nullopt);
}

TEST_F(CheckpointDirTest, BadResumeInputsNameTheProblem) {
  EXPECT_NE(error_of([&] {
              resolve_resume("sometimes", dir_, std::nullopt);
            }).find("trainer.resume_mode: expected auto, disable or resume_path"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              resolve_resume("resume_path", dir_, (dir_ / "ckpt").string());
            }).find("is not a global_step_N checkpoint folder"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              resolve_resume("resume_path", dir_, (dir_ / "global_step_9").string());
            }).find("is missing"),
            std::string::npos);
  std::ofstream(dir_ / kTrackerFile) << "abc";
  EXPECT_NE(error_of([&] {
              resolve_resume("auto", dir_, std::nullopt);
            }).find("latest_checkpointed_iteration.txt: expected a step number, got 'abc'"),
            std::string::npos);
  // A tracker that is a folder or a pipe is named as such (a pipe was read until killed: bt11).
  const std::string tracker = (dir_ / kTrackerFile).string();
  fs::remove(tracker);
  fs::create_directory(tracker);
  EXPECT_EQ(error_of([&] { resolve_resume("auto", dir_, std::nullopt); }),
            tracker + ": checkpoint tracker is a folder, not a file");
  fs::remove(tracker);
  ASSERT_EQ(::mkfifo(tracker.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { resolve_resume("auto", dir_, std::nullopt); }),
            tracker + ": checkpoint tracker is not a regular file (a device, pipe or socket)");
}

TEST_F(CheckpointDirTest, SyncToDiskNamesThePathAndTheReason) {
  write_file_atomically(dir_ / "a", "x");
  fs::create_directories(dir_ / "tree" / "sub");
  write_file_atomically(dir_ / "tree" / "sub" / "b", "y");
  EXPECT_NO_THROW(sync_to_disk(dir_ / "a"));
  EXPECT_NO_THROW(sync_tree_to_disk(dir_ / "tree"));
  try {
    sync_to_disk(dir_ / "missing");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((dir_ / "missing").string()), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  }
}

TEST_F(CheckpointDirTest, AtomicWriteFailureKeepsOldFile) {
  const fs::path file = dir_ / "state.txt";
  write_file_atomically(file, "old");
  EXPECT_THROW(write_file_atomically(dir_ / "missing_dir" / "x.txt", "new"), Error);
  std::ifstream in(file);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "old");
}

// A break-test replaced /dev/full, a FIFO and a symbolic link by regular files: a link is
// written through to its target, and a folder or pipe is refused before anything is written.
TEST_F(CheckpointDirTest, AtomicWritesGoThroughLinksAndNeverReplaceOtherNodes) {
  const fs::path target = dir_ / "target.txt";
  write_file_atomically(target, "old");
  fs::create_symlink(target, dir_ / "link.txt");
  write_file_atomically(dir_ / "link.txt", "new");
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.txt"));
  std::ifstream in(target);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "new");
  fs::create_directories(dir_ / "folder");
  ASSERT_EQ(::mkfifo((dir_ / "pipe").c_str(), 0600), 0);
  for (const char* name : {"folder", "pipe"}) {
    try {
      write_file_atomically(dir_ / name, "x");
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not a regular file"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::is_directory(dir_ / "folder"));
  EXPECT_TRUE(fs::is_fifo(dir_ / "pipe"));
}

}  // namespace
}  // namespace verlpp::trainer
