// The check every reader of a user-named input file makes first, so that a folder, a device
// (/dev/zero, which never ends), a pipe or a missing file gets a one-line error naming the path
// instead of "empty", an endless read or a stream error.
#pragma once

#include <string>

namespace verlpp {

// Throws verlpp::Error "PATH: WHAT ..." unless `path` names a regular file (links followed):
// "no such file", "a link to TARGET, which does not exist", "is a folder, not a file", "is not a
// regular file (a device, pipe or socket)", or the file system's own error text.
void require_regular_file(const std::string& path, const std::string& what);

// True when nothing is at `path` (no file, folder or link; a dangling link counts as nothing, as
// Python's os.path.exists says). Any other state, an unreadable one (a link loop) included, is
// false: the reader that comes next names what is wrong.
bool nothing_at(const std::string& path);

// The bytes of `path` after require_regular_file(path, what) (a pipe or device is refused, not
// read until it ends); throws verlpp::Error "PATH: cannot open WHAT" when it cannot be read.
std::string read_text_file(const std::string& path, const std::string& what);

// Throws verlpp::Error "OUTPUT: OUTPUT_WHAT is INPUT_WHAT INPUT (...would be overwritten)" when
// both paths exist and name the same file or folder (links followed), so that a command never
// writes its output over the input it reads.
void require_not_same(const std::string& output, const std::string& output_what,
                      const std::string& input, const std::string& input_what);

}  // namespace verlpp
