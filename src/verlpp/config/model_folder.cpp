#include "verlpp/config/model_folder.h"

#include <filesystem>

#include "verlpp/config/home_path.h"

namespace verlpp::config {

std::string hf_folder_error(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path actor = fs::path(dir) / "actor" / "huggingface";
  if (fs::exists(fs::path(dir) / "config.json", error) ||
      !fs::exists(actor / "config.json", error)) {
    return "";
  }
  return dir + " is a training checkpoint: its model is " + actor.string() +
         " (or export it with `verlpp model export --checkpoint " + dir + " --output DIR`)";
}

void check_model_folder(const std::string& key, const std::string& path, Findings& out) {
  const std::string error = hf_folder_error(expand_home(path));
  if (!error.empty()) {
    add_error(out, key, error,
              key + "=" + (std::filesystem::path(path) / "actor" / "huggingface").string());
  }
}

}  // namespace verlpp::config
