// Writing a file without ever losing the one already there: the content goes to a temporary name
// in the same folder (same file system), which is renamed over the target only once it is
// complete. A crash or a full disk leaves the old file untouched and no partial target.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace verlpp {

// Calls write(temporary) to produce the file, then renames it to `path`. If write throws, the
// temporary is removed and the exception propagates. Throws verlpp::Error naming `path` when the
// rename fails.
void write_atomically(const std::filesystem::path& path,
                      const std::function<void(const std::filesystem::path& temporary)>& write);

// write_atomically with `contents` as the file's bytes. Throws verlpp::Error naming `path` when the
// bytes cannot be written (disk full, folder missing or read-only).
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace verlpp
