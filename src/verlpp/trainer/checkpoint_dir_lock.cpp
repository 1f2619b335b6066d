#include "verlpp/trainer/checkpoint_dir_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "verlpp/core/error.h"
#include "verlpp/core/log.h"

namespace verlpp::trainer {
namespace {

// The pid that holds a flock on the inode of `fd` as /proc/locks lists it ("1: FLOCK  ADVISORY
// WRITE 4242 fd:01:1234567 0 EOF"), or "" when it is not listed there.
std::string holder_of(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return "";
  // The kernel writes the file as "%02x:%02x:%lu" (fs/locks.c lock_get_status).
  const std::string file = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev),
                                       static_cast<unsigned long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, where;
    fields >> number >> kind >> mode >> access >> pid >> where;
    if (kind == "FLOCK" && where == file) return pid;
  }
  return "";
}

// Rank 0's attempt: "" when it holds the lock (or the file system has no flock), else the error.
std::string lock_on_main(const std::string& dir, int& fd) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return fmt::format("trainer.default_local_dir {}: cannot create it: {}", dir, ec.message());
  fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return fmt::format("trainer.default_local_dir {}: cannot open it: {}", dir,
                       std::strerror(errno));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return "";
  if (errno != EWOULDBLOCK) {
    log_note(fmt::format("trainer.default_local_dir {}: not locked against other runs (flock: {})",
                         dir, std::strerror(errno)));
    return "";
  }
  const std::string pid = holder_of(fd);
  return fmt::format(
      "trainer.default_local_dir {} is in use by another run{}: two runs in one folder replace "
      "each other's checkpoints; wait for it to end or set another trainer.default_local_dir",
      dir, pid.empty() ? "" : " (pid " + pid + ")");
}

}  // namespace

CheckpointDirLock::CheckpointDirLock(const std::string& dir, const dist::Communicator& world) {
  const std::string error = world.is_main() ? lock_on_main(dir, fd_) : "";
  if (world.all_reduce(error.empty() ? 0.0 : 1.0, dist::ReduceOp::max) == 0.0) return;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  throw Error(world.is_main() ? error
                              : fmt::format("trainer.default_local_dir {}: rank 0 could not take "
                                            "it for this run (see rank 0's error)",
                                            dir));
}

CheckpointDirLock::~CheckpointDirLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace verlpp::trainer
