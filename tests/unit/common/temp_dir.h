// A fresh temporary folder per test, removed afterwards: named by the process and a random number,
// so that ctest's parallel runs of one suite never share it.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace verlpp::testing {

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() / ("verlpp_test_" + std::to_string(::getpid()) +
                                                      "_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `content` to NAME in the folder; returns its path.
  std::string file(const std::string& name, const std::string& content) const {
    const auto p = path_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  // The folder, or NAME in it.
  std::string path(const std::string& name = "") const { return (path_ / name).string(); }
  const std::filesystem::path& root() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace verlpp::testing
