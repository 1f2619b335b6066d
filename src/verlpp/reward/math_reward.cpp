#include "verlpp/reward/math_reward.h"

#include "verlpp/reward/hendrycks_strip.h"
#include "verlpp/reward/python_str.h"

namespace verlpp::reward {
std::optional<std::string> last_boxed_only_string(std::string_view text) {
  if (contains(text, "\\boxed ")) {
    const auto after = split(text, "\\boxed ").back();
    return "\\boxed " + split(after, "$")[0];
  }
  std::size_t start = text.rfind("\\boxed");
  if (start == std::string_view::npos) start = text.rfind("\\fbox");
  if (start == std::string_view::npos) return std::nullopt;
  int open = 0;
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] == '{') ++open;
    if (text[i] == '}' && --open == 0) return std::string(text.substr(start, i + 1 - start));
  }
  return std::nullopt;
}

std::optional<std::string> remove_boxed(std::string_view boxed) {
  if (contains(boxed, "\\boxed ")) {
    if (!boxed.starts_with("\\boxed ")) return std::nullopt;
    return std::string(boxed.substr(7));
  }
  if (!boxed.starts_with("\\boxed{") || !boxed.ends_with("}")) return std::nullopt;
  return std::string(boxed.substr(7, boxed.size() - 8));
}

std::optional<std::string> strip_string(std::string_view text) {
  return hendrycks_strip(text, StripVariant::kVerlMath);
}

bool is_equiv(std::string_view a, std::string_view b) {
  const auto sa = strip_string(a);
  const auto sb = strip_string(b);
  if (!sa || !sb) return a == b;
  return *sa == *sb;
}

ScoreResult math_score(std::string_view response, std::string_view ground_truth) {
  ScoreResult result;
  const auto boxed = last_boxed_only_string(response);
  if (!boxed) return result;
  result.extracted = remove_boxed(*boxed);
  if (result.extracted && is_equiv(*result.extracted, ground_truth)) result.score = 1.0;
  return result;
}

}  // namespace verlpp::reward
