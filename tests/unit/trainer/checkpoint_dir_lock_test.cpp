// trainer/checkpoint_dir_lock.h: a second run in a checkpoint folder is refused while the first
// holds it, and the folder is free again when the first ends (messages written out by hand).
#include "verlpp/trainer/checkpoint_dir_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "common/error_of.h"
#include "common/temp_dir.h"

namespace verlpp::trainer {
namespace {

TEST(CheckpointDirLock, ASecondRunInTheFolderIsRefusedUntilTheFirstEnds) {
  const testing::TempDir temp;
  const std::string dir = temp.path("run/ckpt");
  auto first = std::make_unique<CheckpointDirLock>(dir, dist::Communicator{});
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  EXPECT_EQ(testing::error_of([&] { CheckpointDirLock second(dir, dist::Communicator{}); }),
            "trainer.default_local_dir " + dir + " is in use by another run (pid " +
                std::to_string(getpid()) +
                "): two runs in one folder replace each other's checkpoints; wait for it to end "
                "or set another trainer.default_local_dir");
  first.reset();
  EXPECT_EQ(testing::error_of([&] { CheckpointDirLock again(dir, dist::Communicator{}); }),
            "(no error)");
}

TEST(CheckpointDirLock, AFolderThatCannotBeCreatedIsNamed) {
  const testing::TempDir temp;
  const std::string file = temp.file("taken", "x");
  const std::string message =
      testing::error_of([&] { CheckpointDirLock lock(file + "/ckpt", dist::Communicator{}); });
  EXPECT_EQ(message.rfind("trainer.default_local_dir " + file + "/ckpt: cannot create it: ", 0), 0u)
      << message;
}

}  // namespace
}  // namespace verlpp::trainer
