#include "verlpp/config/suggest.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

namespace verlpp::config {
namespace {

// Keys verl renamed, old -> new: a user's old key names its successor rather than the nearest
// spelling (verl's old sft_trainer.yaml at f245e2ddb had model.partial_pretrain; the engine SFT
// trainer reads model.path).
constexpr std::array<std::array<const char*, 2>, 1> kRenamed = {
    {{"model.partial_pretrain", "model.path"}}};

std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_key(const Node& root, const std::string& path) {
  const auto paths = all_paths(root);
  for (const auto& [old_key, new_key] : kRenamed) {
    if (path == old_key && std::find(paths.begin(), paths.end(), new_key) != paths.end()) {
      return new_key;
    }
  }
  for (const auto& candidate : paths) {
    if (candidate.size() > path.size() && candidate.ends_with("." + path)) return candidate;
  }
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const auto& candidate : paths) {
    const std::size_t distance = levenshtein(path, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(const Node& root, const std::string& path) {
  const std::string best = closest_key(root, path);
  return best.empty() ? "" : " (closest valid key: '" + best + "')";
}

}  // namespace verlpp::config
