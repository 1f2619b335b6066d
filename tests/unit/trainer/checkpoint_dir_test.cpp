#include "verlpp/trainer/checkpoint_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

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
  void save(std::int64_t step, std::optional<std::int64_t> keep) {
    CheckpointWriter writer(dir_, step);
    std::ofstream(writer.staging_folder() / "model.bin") << "step " << step;
    writer.commit(keep);
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
  save(2, 2);
  save(4, 2);
  save(6, 2);
  EXPECT_FALSE(fs::exists(dir_ / "global_step_2"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_4" / "model.bin"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_6" / "model.bin"));
  EXPECT_EQ(read_latest_iteration(dir_), 6);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  }
}

// resume_mode=disable into a folder that holds later steps: the checkpoint just saved stays, the
// oldest others go.
TEST_F(CheckpointDirTest, PruningNeverRemovesTheCheckpointJustSaved) {
  save(10, std::nullopt);
  save(11, std::nullopt);
  save(1, 2);
  EXPECT_TRUE(fs::exists(dir_ / "global_step_1" / "model.bin"));
  EXPECT_FALSE(fs::exists(dir_ / "global_step_10"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_11"));
  save(2, 1);
  EXPECT_TRUE(fs::exists(dir_ / "global_step_2" / "model.bin"));
  EXPECT_FALSE(fs::exists(dir_ / "global_step_1"));
  EXPECT_FALSE(fs::exists(dir_ / "global_step_11"));
}

// What a kill during a save leaves: the staging folder of a save (removed; a foreign .tmp folder
// stays), and global_step_N.old when the kill came while N was being replaced (renamed back when
// N is missing, so that auto-resume finds a complete checkpoint; removed when N is complete).
TEST_F(CheckpointDirTest, RecoveryAfterAKilledSave) {
  save(1, std::nullopt);
  save(2, std::nullopt);
  fs::create_directories(dir_ / ".tmp_global_step_3_4242");
  std::ofstream(dir_ / ".tmp_global_step_3_4242" / "partial") << "x";
  fs::create_directories(dir_ / ".tmp_someone_else");
  fs::rename(dir_ / "global_step_2", dir_ / "global_step_2.old");  // killed between the renames
  fs::copy(dir_ / "global_step_1", dir_ / "global_step_1.old", fs::copy_options::recursive);
  recover_checkpoint_dir(dir_);
  EXPECT_FALSE(fs::exists(dir_ / ".tmp_global_step_3_4242"));
  EXPECT_TRUE(fs::exists(dir_ / ".tmp_someone_else"));
  EXPECT_TRUE(fs::exists(dir_ / "global_step_2" / "model.bin"));
  EXPECT_FALSE(fs::exists(dir_ / "global_step_2.old"));
  EXPECT_FALSE(fs::exists(dir_ / "global_step_1.old"));
  const auto point = resolve_resume("auto", dir_, std::nullopt);
  ASSERT_TRUE(point);
  EXPECT_EQ(point->global_step, 2);
  recover_checkpoint_dir(dir_ / "absent");  // nothing to do
}

TEST_F(CheckpointDirTest, AbandonedWriterLeavesPreviousCheckpointIntact) {
  save(1, std::nullopt);
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
  save(3, std::nullopt);
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
  save(2, std::nullopt);
  save(10, std::nullopt);
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
