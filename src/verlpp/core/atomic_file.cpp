#include "verlpp/core/atomic_file.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "verlpp/core/error.h"

namespace verlpp {

void write_atomically(const std::filesystem::path& path,
                      const std::function<void(const std::filesystem::path& temporary)>& write) {
  const std::filesystem::path temporary = path.string() + ".tmp" + std::to_string(getpid());
  std::error_code error;
  try {
    write(temporary);
  } catch (...) {
    std::filesystem::remove(temporary, error);
    throw;
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw Error("cannot write " + path.string() + ": " + error.message());
  }
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
