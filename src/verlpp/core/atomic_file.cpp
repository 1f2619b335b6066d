#include "verlpp/core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp {

void sync_to_disk(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot sync " + path.string() + " to disk: " + std::strerror(errno));
  const int synced = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  if (synced != 0) {
    throw Error("cannot sync " + path.string() + " to disk: " + std::strerror(saved));
  }
}

void sync_tree_to_disk(const std::filesystem::path& folder) {
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    if (entry.is_regular_file() || entry.is_directory()) sync_to_disk(entry.path());
  }
  sync_to_disk(folder);
}

namespace {

// Where the file goes: through a symbolic link to its target (as opening the path for writing
// would), and never over a folder, device or pipe (a rename would replace the node itself).
std::filesystem::path regular_target(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(path, error))) {
    target = fs::weakly_canonical(path, error);
    if (error) throw Error("cannot write " + path.string() + ": " + error.message());
  }
  const fs::file_status status = fs::status(target, error);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw Error("cannot write " + path.string() +
                ": it exists and is not a regular file (a folder, device or pipe); give a file "
                "path");
  }
  return target;
}

}  // namespace

void write_atomically(const std::filesystem::path& requested,
                      const std::function<void(const std::filesystem::path& temporary)>& write) {
  const std::filesystem::path path = regular_target(requested);
  const std::filesystem::path temporary = path.string() + ".tmp" + std::to_string(getpid());
  std::error_code error;
  try {
    write(temporary);
  } catch (...) {
    std::filesystem::remove(temporary, error);
    throw;
  }
  try {
    sync_to_disk(temporary);
  } catch (...) {
    std::filesystem::remove(temporary, error);
    throw;
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    const std::string reason = error.message();
    std::filesystem::remove(temporary, error);
    throw Error("cannot write " + path.string() + ": " + reason);
  }
  sync_to_disk(path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  write_atomically(path, [&](const std::filesystem::path& temporary) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) throw Error("cannot write " + path.string() + " (disk full or not writable)");
  });
}

}  // namespace verlpp
