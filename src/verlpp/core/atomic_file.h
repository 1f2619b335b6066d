// Writing a file without ever losing the one already there: the content goes to a temporary name
// in the same folder (same file system), which is flushed to the disk (fsync) and renamed over the
// target only once it is complete, and the folder's new entry is flushed too (as SQLite and
// PyTorch's distributed checkpoint do). A crash, a power loss or a full disk leaves the old file
// untouched and no partial target.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

namespace verlpp {

// Calls write(temporary) to produce the file, then renames it to `path` (a symbolic link's target
// when `path` is a link). If write throws, the temporary is removed and the exception propagates.
// Throws verlpp::Error naming `path` before writing anything when it exists and is not a regular
// file (a folder, device or pipe), and with the system's reason when the rename fails.
void write_atomically(const std::filesystem::path& path,
                      const std::function<void(const std::filesystem::path& temporary)>& write);

// fsync of a file or a folder (its entries): the data reach the disk before the call returns.
// Throws verlpp::Error naming `path` and the system's reason when it cannot be opened or synced.
void sync_to_disk(const std::filesystem::path& path);

// sync_to_disk of every file and folder below `folder`, then of `folder` itself.
void sync_tree_to_disk(const std::filesystem::path& folder);

// write_atomically with `contents` as the file's bytes. Throws verlpp::Error naming `path` when the
// bytes cannot be written (disk full, folder missing or read-only).
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace verlpp
