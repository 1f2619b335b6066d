#include "model_folder.h"

#include <filesystem>

namespace verlpp::apps {

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

}  // namespace verlpp::apps
