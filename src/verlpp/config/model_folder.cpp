#include "verlpp/config/model_folder.h"

#include <filesystem>
#include <fstream>
#include <optional>

#include "verlpp/config/home_path.h"

namespace verlpp::config {
namespace {

namespace fs = std::filesystem;

bool has_model(const fs::path& dir) {
  std::error_code error;
  return fs::exists(dir / "config.json", error);
}

// The folder of `step` (a global_step_N folder) that holds the role's model, else the actor's.
std::optional<fs::path> step_model(const fs::path& step, const std::string& role) {
  for (const std::string& r : {role, std::string("actor")}) {
    if (has_model(step / r / "huggingface")) return step / r / "huggingface";
  }
  return std::nullopt;
}

struct Found {
  std::string what;  // what `dir` is
  fs::path model;    // where its model is
};

std::optional<Found> find_model(const fs::path& dir, const std::string& role) {
  if (has_model(dir / "huggingface")) {
    return Found{"a training checkpoint's model-state folder", dir / "huggingface"};
  }
  if (const auto model = step_model(dir, role)) return Found{"a training checkpoint", *model};
  const fs::path tracker_path = dir / "latest_checkpointed_iteration.txt";
  std::error_code ec;
  std::ifstream tracker;
  if (fs::is_regular_file(tracker_path, ec)) tracker.open(tracker_path);
  long long step = 0;
  if (tracker >> step) {
    const fs::path newest = dir / ("global_step_" + std::to_string(step));
    if (const auto model = step_model(newest, role)) {
      return Found{"a run's checkpoint folder (its newest step is " + newest.string() + ")",
                   *model};
    }
  }
  return std::nullopt;
}

// Where the model of `dir` is when `dir` is a checkpoint's folder, not a model's.
std::optional<Found> misplaced_model(const std::string& dir, const std::string& role) {
  if (has_model(dir)) return std::nullopt;
  return find_model(dir, role);
}

std::string describe(const std::string& dir, const Found& found) {
  std::string error = dir + " is " + found.what + ": its model is " + found.model.string();
  if (found.model.parent_path().filename() == "actor") {  // what `model export` writes out
    error += " (or export it with `verlpp model export --checkpoint " +
             found.model.parent_path().parent_path().string() + " --output DIR`)";
  }
  return error;
}

}  // namespace

std::string hf_folder_error(const std::string& dir) {
  const auto found = misplaced_model(dir, "actor");
  return found ? describe(dir, *found) : "";
}

void check_model_folder(const std::string& key, const std::string& path, const std::string& role,
                        Findings& out) {
  const std::string dir = expand_home(path);
  if (const auto found = misplaced_model(dir, role)) {
    add_error(out, key, describe(dir, *found), key + "=" + found->model.string());
  }
}

}  // namespace verlpp::config
