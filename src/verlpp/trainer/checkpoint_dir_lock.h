// One run at a time in a checkpoint folder (trainer.default_local_dir). Two runs there replace
// each other's global_step_N folders and, at start, remove each other's half-written ones
// (recover_checkpoint_dir): a break-test's 2-rank and 1-rank runs in one folder both exited 0 and
// the first run's three checkpoints were gone (bt12). verl has no such guard.
//
// Rank 0 creates the folder and holds an exclusive flock(2) on it for the life of the run; the
// kernel releases it when the process ends, a crash or SIGKILL included, so no stale lock is left.
// A file system that refuses flock on a folder (some network file systems) leaves the run unlocked,
// with a note.
#pragma once

#include <string>

#include "verlpp/dist/communicator.h"

namespace verlpp::trainer {

class CheckpointDirLock {
 public:
  // Every rank of `world` constructs it together (one all-reduce). Throws verlpp::Error on every
  // rank when another process holds `dir`, naming the folder, the holder's pid where /proc/locks
  // shows it, and the fix; or when `dir` cannot be created.
  CheckpointDirLock(const std::string& dir, const dist::Communicator& world);
  ~CheckpointDirLock();
  CheckpointDirLock(const CheckpointDirLock&) = delete;
  CheckpointDirLock& operator=(const CheckpointDirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace verlpp::trainer
